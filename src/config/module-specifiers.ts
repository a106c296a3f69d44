export interface ModuleSpecifiers {
  /** Every literal specifier the file imports, re-exports or `require`s. */
  specifiers: string[];
  /** Loads no static reading can follow (`import(name)`, `require(dir + x)`, `createRequire`), as `line N: text`. */
  computed: string[];
  /** Set when the file is not a module at all (a syntax error the lexer met): its reason. Nothing else is read then. */
  syntaxError?: string;
}

/** `require('x')` with a literal; anything else after `require(` is computed. */
const LITERAL_REQUIRE = /^\s*(?:'([^'\\\n]+)'|"([^"\\\n]+)"|`([^`\\$\n]+)`)\s*[,)]/;
/** `const load = createRequire(...)` (also `module.createRequire`): `load` is a `require` by another name. */
const REQUIRE_ALIAS = /\b([A-Za-z_$][\w$]*)\s*=\s*(?:[\w$]+\.)?createRequire\s*\(/g;
/** A type-only import or re-export: TypeScript erases it, nothing loads. */
const TYPE_ONLY = /^(?:import|export)\s+type\s+[\w${*]/;

/**
 * The imports of one JavaScript or TypeScript file, read without running it: es-module-lexer for
 * ES module syntax (it lexes TypeScript too: type annotations do not confuse a lexer that only
 * tracks strings, comments, templates, regular expressions and brackets), and a scan for CommonJS
 * `require` calls, which jiti and CommonJS packages use. The scan also matches in comments and
 * strings: it can only err towards following more, or calling a file unreadable.
 */
export async function moduleSpecifiers(source: string): Promise<ModuleSpecifiers> {
  // Loaded when a config is checked, not with the public entry.
  const { init, parse } = await import('es-module-lexer');
  await init;
  const specifiers: string[] = [];
  const computed: string[] = [];
  let imports;
  try {
    [imports] = parse(source);
  } catch (error) {
    return { specifiers, computed, syntaxError: (error as Error).message };
  }
  for (const entry of imports) {
    if (entry.d === -2) continue; // import.meta
    if (entry.d === -1 && TYPE_ONLY.test(source.slice(entry.ss, entry.se))) continue;
    if (entry.n !== undefined) specifiers.push(entry.n);
    else computed.push(`line ${lineOf(source, entry.ss)}: ${oneLine(source.slice(entry.ss, entry.se > entry.ss ? entry.se : entry.ss + 60))}`);
  }
  const aliases = new Set(['require', ...[...source.matchAll(REQUIRE_ALIAS)].map((match) => match[1]!)]);
  const bareCreateRequire = [...source.matchAll(/\bcreateRequire\s*\(/g)].length - [...source.matchAll(REQUIRE_ALIAS)].length;
  if (bareCreateRequire > 0) computed.push(`createRequire(...) whose result is not kept under a name (${bareCreateRequire}x)`);
  const loaderCall = new RegExp(`(?<![\\w$])(${[...aliases].map(escapeRegExp).join('|')})\\s*\\(`, 'g');
  for (const match of source.matchAll(loaderCall)) {
    const start = match.index;
    // A method named like one (`store.require(id)`) loads nothing; `module.require(x)` does.
    if (source[start - 1] === '.' && !/(?<![\w$.])module\.$/.test(source.slice(Math.max(0, start - 8), start))) continue;
    const literal = LITERAL_REQUIRE.exec(source.slice(start + match[0].length));
    const name = literal?.[1] ?? literal?.[2] ?? literal?.[3];
    if (name !== undefined) specifiers.push(name);
    else computed.push(`line ${lineOf(source, start)}: ${oneLine(source.slice(start, start + 60))}`);
  }
  return { specifiers, computed };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function lineOf(source: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index && i < source.length; i++) if (source.charCodeAt(i) === 10) line++;
  return line;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
}
