// Validates Kubernetes manifests offline, the way an API server with strict field validation would:
//  1. every YAML document parses (duplicate keys are errors);
//  2. its object matches the Kubernetes OpenAPI schema of its apiVersion/kind (types, required fields,
//     enums, formats), using the validators kubernetes-models generates from that schema;
//  3. it has no field the API does not know (`kubectl apply` rejects those by default since 1.27): each
//     object is type-checked against kubernetes-models' TypeScript interfaces, whose excess-property check
//     catches misspelled or misplaced fields at any depth.
// Usage: node lint-manifests.mjs FILE.yaml... (run from a directory where `npm ci` installed package.json)
// Prints one line per problem, or a summary; exits 1 when there is a problem, 2 on bad usage.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { parseAllDocuments } from "yaml";

const here = dirname(fileURLToPath(import.meta.url));
const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node lint-manifests.mjs FILE.yaml...");
  process.exit(2);
}

const problems = [];
const typeChecks = [];  // { where, modulePath, kind, object }
let documentCount = 0;

// "apps/v1" + "DaemonSet" -> "kubernetes-models/apps/v1/DaemonSet"; core "v1" has no group.
function modulePathFor(apiVersion, kind) {
  if (typeof apiVersion !== "string" || typeof kind !== "string" || !/^[A-Za-z0-9]+$/.test(kind)) return null;
  if (!/^([a-z0-9.-]+\/)?v[0-9a-z]+$/.test(apiVersion)) return null;
  return `kubernetes-models/${apiVersion}/${kind}`;
}

for (const file of files) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    problems.push(`${file}: cannot read: ${error.message}`);
    continue;
  }
  const documents = parseAllDocuments(text, { uniqueKeys: true, prettyErrors: false });
  for (const [index, document] of documents.entries()) {
    const where = `${file}: document ${index + 1}`;
    if (document.errors.length > 0) {
      for (const error of document.errors) problems.push(`${where}: YAML: ${error.message}`);
      continue;
    }
    const object = document.toJS();
    if (object === null || object === undefined) continue;  // an empty document (e.g. a trailing ---)
    documentCount++;
    const label = `${where} (${object.kind ?? "?"} ${object.metadata?.name ?? "?"})`;
    const modulePath = modulePathFor(object.apiVersion, object.kind);
    if (!modulePath) {
      problems.push(`${label}: missing or malformed apiVersion/kind`);
      continue;
    }
    if (!object.metadata?.name) problems.push(`${label}: metadata.name is missing`);
    let model;
    try {
      model = (await import(modulePath))[object.kind];
    } catch {
      model = undefined;
    }
    if (typeof model !== "function") {
      problems.push(`${label}: unknown apiVersion/kind ${object.apiVersion}/${object.kind}`);
      continue;
    }
    try {
      new model(object).validate();
    } catch (error) {
      problems.push(`${label}: schema: ${error.message}`);
    }
    typeChecks.push({ label, modulePath, kind: object.kind, object });
  }
}

// Unknown fields: one TypeScript file per object, type-checked together.
if (typeChecks.length > 0) {
  const checkDir = mkdtempSync(join(here, ".check-"));
  try {
    const sources = typeChecks.map((check, index) => {
      const path = join(checkDir, `object${index}.ts`);
      const typeName = `I${check.kind}`;
      writeFileSync(path, `import type { ${typeName} } from "${check.modulePath}";\n` +
                          `export const object: ${typeName} = ${JSON.stringify(check.object, null, 2)};\n`);
      return path;
    });
    const program = ts.createProgram(sources, {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2020,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
    });
    for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, " ");
      const index = diagnostic.file ? sources.indexOf(diagnostic.file.fileName) : -1;
      const label = index >= 0 ? typeChecks[index].label : basename(diagnostic.file?.fileName ?? "type check");
      problems.push(`${label}: fields: ${message}`);
    }
  } finally {
    rmSync(checkDir, { recursive: true, force: true });
  }
}

for (const problem of problems) console.log(problem);
if (problems.length > 0) process.exit(1);
console.log(`ok: ${documentCount} objects in ${files.length} files`);
