// Decodes a gzip'd pprof profile with the independent pprof-format package, checks that every reference
// in it resolves, and prints what it holds, one fact per line (names last, as they may contain spaces):
//   sample_type <type> <unit> | default <type> | period <n> | total <index> <sum> | thread <samples> <name>
//   leaf <samples> <function name> | function <name> | file <file name> | mapping <file name> | error <problem>
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { Profile } from 'pprof-format';

const profile = Profile.decode(gunzipSync(readFileSync(process.argv[2])));
const strings = profile.stringTable.strings;
const errors = [];
const str = (index) => {
  const i = Number(index);
  if (!(i >= 0 && i < strings.length)) errors.push('string index ' + i + ' out of range');
  return strings[i];
};
if (strings[0] !== '') errors.push('string_table[0] is not empty');

const functions = new Map(profile.function.map((f) => [Number(f.id), f]));
const mappings = new Map(profile.mapping.map((m) => [Number(m.id), m]));
const locations = new Map(profile.location.map((l) => [Number(l.id), l]));
for (const l of profile.location) {
  if (Number(l.mappingId) !== 0 && !mappings.has(Number(l.mappingId))) errors.push('location ' + l.id + ': no mapping');
  if (l.line.length === 0) errors.push('location ' + l.id + ': no lines');
  for (const line of l.line) {
    if (!functions.has(Number(line.functionId))) errors.push('location ' + l.id + ': no function ' + line.functionId);
  }
}

const out = [];
for (const t of profile.sampleType) out.push('sample_type ' + str(t.type) + ' ' + str(t.unit));
out.push('default ' + str(profile.defaultSampleType));
out.push('period ' + profile.period);
const totals = profile.sampleType.map(() => 0n);
const byThread = new Map();
const byLeaf = new Map();
for (const s of profile.sample) {
  if (s.value.length !== profile.sampleType.length) errors.push('sample with ' + s.value.length + ' values');
  s.value.forEach((v, i) => { totals[i] += BigInt(v); });
  for (const id of s.locationId) if (!locations.has(Number(id))) errors.push('sample: no location ' + id);
  const thread = s.label.find((l) => str(l.key) === 'thread');
  const name = thread ? str(thread.str) : '(none)';
  byThread.set(name, (byThread.get(name) || 0n) + BigInt(s.value[0]));
  const leaf = locations.get(Number(s.locationId[0]));
  if (leaf) {
    const fn = functions.get(Number(leaf.line[0].functionId));
    const leafName = fn ? str(fn.name) : '?';
    byLeaf.set(leafName, (byLeaf.get(leafName) || 0n) + BigInt(s.value[0]));
  }
}
totals.forEach((t, i) => out.push('total ' + i + ' ' + t));
for (const [name, n] of byThread) out.push('thread ' + n + ' ' + name);
for (const [name, n] of byLeaf) out.push('leaf ' + n + ' ' + name);
for (const f of profile.function) {
  out.push('function ' + str(f.name));
  out.push('file ' + str(f.filename));
}
for (const m of profile.mapping) out.push('mapping ' + str(m.filename));
for (const e of errors) out.push('error ' + e);
console.log(out.join('\n'));
