// @ts-check
/**
 * A Node 20 pipeline that gates each handoff with handoff-gate, with no Python of its own.
 *
 * Plain JavaScript checked as TypeScript (`// @ts-check` and JSDoc types: Node 20 runs
 * no .ts file without a build step, and this needs no npm package). Each step's
 * contract is a JSON Schema file, the way a TypeScript codebase already describes its
 * shapes; `submit --json-schema` stores it in the run by digest, so the reviewer's
 * `handoff-gate watch` or `decide` needs no contract module at all. The step then
 * blocks in `handoff-gate wait` and goes on only with the payload a person approved.
 *
 *     node examples/pipeline.mjs RUN_DIR
 *
 * Exit 0 when every step was approved, 1 when one was rejected (the reason is
 * printed), and the gate's own code otherwise. `HANDOFF_GATE_BIN` names the command
 * (default: `handoff-gate` on PATH).
 */

import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const CONTRACTS = join(HERE, "..", "sample_runs", "dex-contracts");
const GATE = process.env.HANDOFF_GATE_BIN || "handoff-gate";

/**
 * One step of the feature loop: its phase, its contract id and schema file, and the
 * reply a model would have produced (the sample's good payload).
 * @typedef {{ phase: string, schemaId: string, schemaFile: string, replyFile: string }} Step
 */

/** @type {Step[]} */
const STEPS = [
  {
    phase: "manifest",
    schemaId: "manifest/v1",
    schemaFile: join(CONTRACTS, "manifest.schema.json"),
    replyFile: join(CONTRACTS, "payloads", "manifest-ok.json"),
  },
  {
    phase: "verify",
    schemaId: "verify/v1",
    schemaFile: join(CONTRACTS, "verify.schema.json"),
    replyFile: join(CONTRACTS, "payloads", "verify-ok.json"),
  },
];

/**
 * What a finished `handoff-gate` process said.
 * @typedef {{ code: number, stdout: string, stderr: string }} Ran
 */

/**
 * Run `handoff-gate ARGS` to the end, its output collected (never through a shell, so
 * no argument is ever parsed twice).
 * @param {string[]} args
 * @returns {Promise<Ran>}
 */
function gate(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(GATE, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 2, stdout, stderr }));
  });
}

/**
 * Submit one step's reply against its JSON Schema; the handoff's id.
 * @param {string} run
 * @param {Step} step
 * @returns {Promise<string>}
 */
async function submit(run, step) {
  const args = ["submit", run, "--phase", step.phase, "--schema", step.schemaId];
  const done = await gate([...args, "--json-schema", step.schemaFile, step.replyFile]);
  if (done.code !== 0) {
    throw Object.assign(new Error(`submit failed: ${done.stderr.trim()}`), { code: done.code });
  }
  return done.stdout.trim();
}

/**
 * Block until a person decides; the approved payload, or the exit code otherwise.
 * @param {string} run
 * @param {string} id
 * @returns {Promise<{ approved: true, payload: Record<string, unknown> } | { approved: false, code: number, why: string }>}
 */
async function wait(run, id) {
  const done = await gate(["wait", run, id, "--out", "-"]);
  if (done.code === 0) {
    return { approved: true, payload: JSON.parse(done.stdout) };
  }
  return { approved: false, code: done.code, why: done.stderr.trim() };
}

/**
 * @param {string} run
 * @returns {Promise<number>}
 */
async function main(run) {
  for (const step of STEPS) {
    JSON.parse(await readFile(step.replyFile, "utf8")); // the model's reply is JSON
    const id = await submit(run, step);
    console.log(`${id}: waiting for a reviewer`);
    const result = await wait(run, id);
    if (!result.approved) {
      console.log(`${id}: not approved (exit ${result.code}): ${result.why}`);
      return result.code;
    }
    console.log(`${id}: approved; delivered ${Object.keys(result.payload).sort().join(", ")}`);
  }
  console.log("pipeline finished: every step approved");
  return 0;
}

const run = process.argv[2];
if (!run) {
  console.error("usage: node examples/pipeline.mjs RUN_DIR");
  process.exit(2);
}
main(run).then(
  (code) => process.exit(code),
  (/** @type {Error & { code?: number }} */ error) => {
    console.error(error.message);
    process.exit(typeof error.code === "number" ? error.code : 2);
  },
);
