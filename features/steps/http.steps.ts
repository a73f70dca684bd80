import { expect } from "bun:test";
import { type DataTable, Given, Then, When } from "@cucumber/cucumber";
import type { ConformanceWorld } from "../support/world.ts";

/**
 * Every node of the target answers HTTP (whatever its answer: the health route itself is checked by the node-shell
 * scenarios, so that a node without it fails those and nothing else).
 */
Given("the target's nodes answer", async function (this: ConformanceWorld) {
  for (const node of ["bidder", ...this.target.providerUrls.map((_, i) => `provider ${i + 1}`)])
    await this.http("GET", `${this.nodeUrl(node)}/health`, { timeoutMs: 10_000 });
});

When(
  /^I send (GET|POST|PUT|DELETE|PATCH) "([^"]*)" to the (bidder|provider(?: \d+)?)(?: with body '(.*)')?$/,
  async function (this: ConformanceWorld, method: string, path: string, node: string, body?: string) {
    return this.send(method, node, path, body);
  },
);

Then("the HTTP status is {int}", function (this: ConformanceWorld, status: number) {
  if (this.httpOnly("the HTTP exchange")) return "skipped";
  expect(this.response.status, `body: ${this.response.text}`).toBe(status);
});

Then("the body is the text {string}", function (this: ConformanceWorld, text: string) {
  if (this.httpOnly("the HTTP exchange")) return "skipped";
  expect(this.response.text.trim()).toBe(text);
});

Then("the body is the status {int} {string}", function (this: ConformanceWorld, code: number, message: string) {
  if (this.httpOnly("the HTTP exchange")) return "skipped";
  expect(this.response.json, `body: ${this.response.text}`).toEqual({ code, message, details: [] });
});

Then("the content type is JSON", function (this: ConformanceWorld) {
  if (this.httpOnly("the HTTP exchange")) return "skipped";
  expect(this.response.headers.get("content-type") ?? "").toContain("application/json");
});

Then("the OpenAPI document lists these operations:", function (this: ConformanceWorld, table: DataTable) {
  if (this.httpOnly("the HTTP exchange")) return "skipped";
  const doc = this.response.json as { openapi?: string; paths?: Record<string, Record<string, unknown>> };
  expect(doc?.openapi, "not an OpenAPI document").toBeString();
  const listed = Object.entries(doc.paths ?? {}).flatMap(([p, ops]) =>
    Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
  );
  for (const row of table.hashes()) {
    const path = row.path!.replace(/\{(\w+)\}/g, "{$1}");
    expect(listed, `${row.method} ${path} missing from the OpenAPI document`).toContain(`${row.method} ${path}`);
  }
});
