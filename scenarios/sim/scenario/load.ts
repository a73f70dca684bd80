import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { ScenarioError } from "./fields.ts";
import { parseScenario, type Scenario } from "./schema.ts";

/** Reads a scenario file (.yaml, .yml or .json) and checks it; a wrong field throws a ScenarioError naming it. */
export function loadScenario(file: string): Scenario {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new ScenarioError(file, "", `cannot read the file: ${(e as Error).message}`);
  }
  return parseScenarioText(file, text);
}

export function parseScenarioText(file: string, text: string): Scenario {
  const ext = extname(file).toLowerCase();
  let doc: unknown;
  try {
    doc = ext === ".json" ? JSON.parse(text) : Bun.YAML.parse(text);
  } catch (e) {
    throw new ScenarioError(file, "", `not valid ${ext === ".json" ? "JSON" : "YAML"}: ${(e as Error).message}`);
  }
  return parseScenario(file, doc);
}
