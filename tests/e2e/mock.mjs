// The mock model provider, as the end-to-end tests reach it: over real HTTP (CORS and
// all), at the address `cargo xtask test` started it on.
import assert from "node:assert/strict";

export const MOCK_URL = process.env.NL2SQL_MOCK_URL ?? "";
const ROOT = MOCK_URL.replace(/\/v1$/, "");

export function requireMock() {
  assert.ok(MOCK_URL, "NL2SQL_MOCK_URL is not set: run the end-to-end tests with cargo xtask test");
}

// Canned answers: `{ name, question, answer }`, `answer` as an object or text.
export async function addFixtures(list) {
  const body = list.map(({ name, question, answer }) => ({
    name,
    question,
    answer: typeof answer === "string" ? answer : JSON.stringify(answer),
  }));
  const r = await fetch(`${ROOT}/mock/fixtures`, { method: "POST", body: JSON.stringify(body) });
  assert.equal(r.status, 200);
}

// The chat calls the mock received whose last message contains `text`, by structured
// output name (`plan`, `answerability`, … or `text`).
export async function callsAbout(text) {
  const r = await fetch(`${ROOT}/mock/received`, { method: "POST", body: "{}" });
  const all = await r.json();
  return all
    .filter((c) => c.path.endsWith("/chat/completions") || c.path.endsWith("/messages"))
    .filter((c) => JSON.stringify(c.body.messages ?? []).includes(text))
    .map((c) =>
      c.body.tools?.[0]?.function?.name ??
      c.body.tools?.[0]?.name ??
      c.body.response_format?.json_schema?.name ??
      "text",
    );
}

// Pieces of plans, for fixtures.
export const col = (alias, name) => ({ kind: "column", alias, column_name: name });
export const eq = (left, right) => ({ kind: "binary", op: "=", left, right });
const count = (arg) => ({ kind: "func", func_name: "COUNT", is_aggregate: true, args: [arg] });

export const GENRES = "Which genres have the most tracks?";
export const GENRES_FIXTURES = [
  { name: "answerability", question: GENRES, answer: { datasources: ["chinook"], reason: "Genres and tracks are in the music store." } },
  {
    name: "plan",
    question: GENRES,
    answer: {
      tables: [{ name: "Genre", alias: "g" }, { name: "Track", alias: "t" }],
      joins: [{ left_alias: "g", right_alias: "t", condition: eq(col("g", "GenreId"), col("t", "GenreId")) }],
      select_items: [{ expr: col("g", "Name"), alias: "genre" }, { expr: count(col("t", "TrackId")), alias: "tracks" }],
      group_by: [{ expr: col("g", "Name") }],
      order_by: [{ expr: count(col("t", "TrackId")), direction: "desc" }],
    },
  },
  // Its words are close to a verified query's ("Which tracks are in the {genre} genre?"):
  // the matcher asks the model, which declines.
  { name: "verified_query_choice", question: GENRES, answer: { query_id: "none_of_these", params: [], reason: "No verified query counts tracks per genre." } },
  { name: "text", question: GENRES, answer: "Rock has by far the most tracks (1,297), then Latin (579) and Metal (374)." },
];

export const CUSTOMERS = "List the customers from Brazil.";
export const CUSTOMERS_FIXTURES = [
  { name: "answerability", question: CUSTOMERS, answer: { datasources: ["chinook"], reason: "Customers are in the music store." } },
  {
    name: "plan",
    question: CUSTOMERS,
    answer: {
      tables: [{ name: "Customer", alias: "c" }],
      select_items: [{ expr: col("c", "FirstName") }, { expr: col("c", "LastName") }],
      where: eq(col("c", "Country"), { kind: "literal", value: "Brazil" }),
    },
  },
];

// Asked by a role that may not read Employee: the model plans it anyway.
export const PRIVATE = "Which employees were hired first, privately?";
export const PRIVATE_FIXTURES = [
  { name: "answerability", question: PRIVATE, answer: { datasources: ["chinook"], reason: "Staff are in the music store." } },
  { name: "plan", question: PRIVATE, answer: { tables: [{ name: "Employee", alias: "e" }], select_items: [{ expr: col("e", "LastName") }] } },
];

export const WEATHER = "What will the weather be tomorrow?";
export const WEATHER_FIXTURES = [
  { name: "answerability", question: WEATHER, answer: { datasources: [], reason: "No database holds weather forecasts." } },
];

export const CROSS = "Which customers have an open support ticket, and how much have they spent?";
const PART_OPEN = "Which customers (email, first and last name) have a ticket whose status is open?";
const PART_SPEND = "What is the total amount each customer (by email) has spent on invoices?";
const SPEND_PLAN = {
  tables: [{ name: "Customer", alias: "c" }, { name: "Invoice", alias: "i" }],
  joins: [{ left_alias: "c", right_alias: "i", condition: eq(col("c", "CustomerId"), col("i", "CustomerId")) }],
  select_items: [
    { expr: col("c", "Email"), alias: "email" },
    {
      expr: {
        kind: "func",
        func_name: "ROUND",
        args: [{ kind: "func", func_name: "SUM", is_aggregate: true, args: [col("i", "Total")] }, { kind: "literal", value: 2 }],
      },
      alias: "total_spent",
    },
  ],
  group_by: [{ expr: col("c", "Email") }],
};
export const CROSS_FIXTURES = [
  { name: "answerability", question: CROSS, answer: { datasources: ["chinook", "support"], combine: true, reason: "Tickets are in support, spend in chinook." } },
  {
    name: "decomposition",
    question: CROSS,
    answer: {
      sub_queries: [
        { id: "q1", datasource: "support", question: PART_OPEN, columns: ["email", "first_name", "last_name"], key: "email" },
        { id: "q2", datasource: "chinook", question: PART_SPEND, columns: ["email", "total_spent"], key: "email" },
      ],
      combine: "join",
      order_by: [{ column: "total_spent", descending: true }],
      limit: null,
    },
  },
  {
    name: "plan",
    question: PART_OPEN,
    answer: {
      distinct: true,
      tables: [{ name: "tickets", alias: "t" }, { name: "customers", alias: "c" }],
      joins: [{ left_alias: "t", right_alias: "c", condition: eq(col("t", "customer_id"), col("c", "customer_id")) }],
      select_items: [
        { expr: col("c", "customer_email"), alias: "email" },
        { expr: col("c", "first_name"), alias: "first_name" },
        { expr: col("c", "last_name"), alias: "last_name" },
      ],
      where: eq(col("t", "status"), { kind: "literal", value: "open" }),
    },
  },
  { name: "plan", question: PART_SPEND, answer: SPEND_PLAN },
  // Planning the top-routed datasource starts while the check runs; that plan is dropped
  // once the verdict says two databases are needed. (The spend part's prompt holds the
  // user's question too, and it is shorter than the question, so the mock answers it with
  // this fixture: the same plan.)
  { name: "plan", question: CROSS, answer: SPEND_PLAN },
  { name: "text", question: CROSS, answer: "30 customers have an open ticket; the biggest spender among them spent $49.62." },
];

export const SHOP = "Which products are out of stock?";
export const SHOP_FIXTURES = [
  { name: "answerability", question: SHOP, answer: { datasources: ["shop"], reason: "Stock levels are in the shop database." } },
  {
    name: "plan",
    question: SHOP,
    answer: {
      tables: [{ name: "products", alias: "p" }],
      select_items: [{ expr: col("p", "name") }],
      where: eq(col("p", "stock"), { kind: "literal", value: 0 }),
    },
  },
];
