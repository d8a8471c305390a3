// Writes ../jupyter_agents/labextension/sources.json: the SHA-256 of the sources `jlpm
// build:prod` reads (src/**/*.ts, style/, schema/, package.json, yarn.lock, tsconfig.json,
// webpack.config.js). An editable install compares it with the tree's own digest
// (hatch_build.py computes the same one) to decide whether the committed build is current:
// content, not commit order, so a change to the widget's JavaScript (src/widget/*.js, built
// by build:widget) never makes the lab build look stale.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const FILES = ['package.json', 'yarn.lock', 'tsconfig.json', 'webpack.config.js'];
const TREES = [
  ['src', name => name.endsWith('.ts')],
  ['style', () => true],
  ['schema', () => true]
];

/** @param {string} folder @param {(name: string) => boolean} keep @returns {string[]} */
function walk(folder, keep) {
  const found = [];
  for (const entry of readdirSync(join(HERE, folder))) {
    const path = `${folder}/${entry}`;
    if (statSync(join(HERE, path)).isDirectory()) found.push(...walk(path, keep));
    else if (keep(entry)) found.push(path);
  }
  return found;
}

const paths = [...FILES, ...TREES.flatMap(([folder, keep]) => walk(folder, keep))].sort();
const hash = createHash('sha256');
for (const path of paths) {
  const text = readFileSync(join(HERE, path)).toString('latin1').replaceAll('\r\n', '\n');
  hash.update(`${path}\n${Buffer.byteLength(text, 'latin1')}\n`);
  hash.update(Buffer.from(text, 'latin1'));
}
const out = join(HERE, '..', 'jupyter_agents', 'labextension', 'sources.json');
writeFileSync(out, JSON.stringify({ sources_sha256: hash.digest('hex') }, null, 2) + '\n');
