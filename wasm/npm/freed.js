
// Added by `cargo xtask npm` (wasm/npm/freed.js): an engine used after `free()` fails with
// a code, as every failure of the package does (the bindings' own "null pointer passed to
// rust" has none). The methods that return a promise reject with it; the others throw it.
const ENGINE_PROMISED = new Set([
  "addDatasource", "approve", "ask", "deleteProposal", "editProposal", "loadFeedback",
  "removeDatasource", "route", "sql", "testConnection", "useSemanticWeights",
]);
for (const name of Object.getOwnPropertyNames(Engine.prototype)) {
  const method = Engine.prototype[name];
  if (name === "constructor" || name === "free" || typeof method !== "function") continue;
  Engine.prototype[name] = function (...args) {
    if (this.__wbg_ptr === 0) {
      const error = new Error(`engine.${name}() after engine.free(): create a new engine to go on`);
      error.code = "ENGINE_FREED";
      if (ENGINE_PROMISED.has(name)) return Promise.reject(error);
      throw error;
    }
    return method.apply(this, args);
  };
}
