import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** Cruises `entries` under `baseDir` with the project's rules (.dependency-cruiser.cjs); returns "rule: from → to" lines. */
async function violations(baseDir: string, entries: string[]): Promise<{ lines: string[]; cruised: number }> {
  const options = await extractDepcruiseOptions(join(root, '.dependency-cruiser.cjs'));
  const tsConfig = extractTSConfig(join(baseDir, 'tsconfig.json'));
  const previous = process.cwd();
  process.chdir(baseDir);
  try {
    const reporterOutput = await cruise(entries, { ...options, baseDir, validate: true }, {}, { tsConfig });
    const result = reporterOutput.output as ICruiseResult;
    const lines = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    return { lines, cruised: result.summary.totalCruised };
  } finally {
    process.chdir(previous);
  }
}

describe('layer rules (DESIGN.md, .dependency-cruiser.cjs)', () => {
  it('no import in src/ or bin/ breaks a layer rule', async () => {
    const { lines, cruised } = await violations(root, ['src', 'bin']);
    expect(cruised).toBeGreaterThan(300);
    expect(lines).toEqual([]);
  }, 120_000);

  it('catches an upward import in every layer it guards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'layers-'));
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
      'bin/main.ts': "import './../src/cli/run.js';\n",
      'src/cli/run.ts': "import '../adapters/face.js';\n",
      'src/adapters/face.ts': "import '../agent/core.js';\n",
      'src/agent/core.ts': "import '../adapters/face.js';\nimport '../mcp/registry.js';\nimport '../cli/run.js';\n",
      'src/mcp/registry.ts': "import '../adapters/face.js';\n",
      'src/tools/tool.ts': "import '../agent/core.js';\n",
      'src/config/schema.ts': "import '../agent/core.js';\n",
      'src/model/model.ts': "import '../agent/core.js';\n",
      'src/retrieval/index.ts': "import '../mcp/registry.js';\n",
      'src/storage/store.ts': "import '../agent/core.js';\n",
      'src/contracts/events.ts': "import '../agent/core.js';\n",
      'src/adapters/acp/router.ts': "import './versions.js';\n",
      'src/adapters/acp/versions.ts': "import './router.js';\n",
    };
    try {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      const { lines } = await violations(dir, ['src', 'bin']);
      expect(lines.sort()).toEqual(
        [
          'agent-knows-no-protocol: src/agent/core.ts → src/adapters/face.ts',
          'agent-knows-no-protocol: src/agent/core.ts → src/mcp/registry.ts',
          'only-cli-imports-cli: src/agent/core.ts → src/cli/run.ts',
          'extensions-below-adapters: src/mcp/registry.ts → src/adapters/face.ts',
          'bottom-layers-import-no-core: src/tools/tool.ts → src/agent/core.ts',
          'bottom-layers-import-no-core: src/config/schema.ts → src/agent/core.ts',
          'bottom-layers-import-no-core: src/model/model.ts → src/agent/core.ts',
          'retrieval-serves-every-module: src/retrieval/index.ts → src/mcp/registry.ts',
          'storage-owns-its-records: src/storage/store.ts → src/agent/core.ts',
          'contracts-at-the-bottom: src/contracts/events.ts → src/agent/core.ts',
          'acp-no-cycle: src/adapters/acp/router.ts → src/adapters/acp/versions.ts',
        ].sort(),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
