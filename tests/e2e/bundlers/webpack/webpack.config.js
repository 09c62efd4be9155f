// The least a webpack 5 app needs: an entry and an output folder.
import path from "node:path";

export default {
  mode: "production",
  entry: "./main.js",
  output: { path: path.resolve(import.meta.dirname, "dist"), filename: "main.js", clean: false },
};
