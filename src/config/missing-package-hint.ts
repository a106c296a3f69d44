/**
 * A config file that imports `plaited-agent` (for `defineConfig`) in a project that has not
 * installed the package fails with Node's or jiti's bare "Cannot find module". Says what to do
 * instead: install it, or drop the import (a plain object, or `.plaited/config.json`).
 */
const PACKAGE = 'plaited-agent';
const NOT_FOUND = /Cannot find (?:module|package) '([^']+)'/;

export function missingPackageHint(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const specifier = NOT_FOUND.exec(error.message)?.[1];
  if (specifier !== PACKAGE && !specifier?.startsWith(`${PACKAGE}/`)) return undefined;
  return (
    `it imports '${specifier}', which is not installed in this project. Either install it here ` +
    `(npm install --save-dev /path/to/a/clone/of/${PACKAGE}, or npm install --save-dev ${PACKAGE} once it is published), ` +
    `or remove the import: defineConfig only adds types, so \`export default { ... }\` with a plain object works, ` +
    `as does .plaited/config.json.`
  );
}
