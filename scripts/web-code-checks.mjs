#!/usr/bin/env node
// Two checks on the dashboard's code (web/src), read with the TypeScript
// parser so words in comments and page text ("any item") do not count:
// - no `any` type: every GraphQL answer the page reads has a type, and a
//   shape that truly varies is `unknown` narrowed where it is read;
// - no import running back up: web/src/views/ holds the pages, and only the
//   entry (main.tsx) imports them; the shared pieces beside it never do, so a
//   piece two views share lives below both.
// `node scripts/web-code-checks.mjs` prints what it finds and exits 1 when
// anything is found; test/operations/web-code-is-typed.test.ts runs the same.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The one file allowed to import from views/: the page's entry, which mounts them. */
const ENTRY = 'web/src/main.tsx';

function sourceFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|tsx|mts)$/.test(entry.name)) out.push(full);
  }
  return out;
}

function parsed(file) {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, kind);
}

function walk(node, visit) {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

const relative = (root, file) => path.relative(root, file).split(path.sep).join('/');

/** Every `any` written as a type in web/src, as "file:line". */
export function anysIn(root = ROOT) {
  const found = [];
  for (const file of sourceFiles(path.join(root, 'web/src'))) {
    const source = parsed(file);
    walk(source, (node) => {
      if (node.kind === ts.SyntaxKind.AnyKeyword) {
        found.push(`${relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
      }
    });
  }
  return found;
}

/** Every relative import, export-from or dynamic import specifier of a parsed file. */
function specifiers(source) {
  const found = [];
  walk(source, (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push(node.arguments[0].text);
    }
  });
  return found.filter((spec) => spec.startsWith('.'));
}

/** Imports into web/src/views/ from a file outside it (other than the entry), as "file → target". */
export function importsBackUp(root = ROOT) {
  const views = path.join(root, 'web/src/views') + path.sep;
  const found = [];
  for (const file of sourceFiles(path.join(root, 'web/src'))) {
    const name = relative(root, file);
    if (name === ENTRY || file.startsWith(views)) continue;
    for (const spec of specifiers(parsed(file))) {
      const target = path.resolve(path.dirname(file), spec);
      if ((target + path.sep).startsWith(views)) found.push(`${name} → ${relative(root, target)}`);
    }
  }
  return found;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const anys = anysIn();
  const back = importsBackUp();
  console.log(`any in web/src: ${anys.length}${anys.length ? `\n  ${anys.join('\n  ')}` : ''}`);
  console.log(`imports into views/ from below: ${back.length}${back.length ? `\n  ${back.join('\n  ')}` : ''}`);
  process.exit(anys.length || back.length ? 1 : 0);
}
