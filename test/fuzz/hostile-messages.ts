import fc from 'fast-check';

/**
 * Arbitraries for hostile JSON-RPC traffic. Every generated request that carries a valid id
 * uses a fresh string id (`fz-N`), so a property can demand exactly one answer for it; ids
 * that are invalid on purpose (objects, booleans) are marked so the property skips them.
 */
export interface HostileLine {
  /** The raw text sent (one line, no trailing newline). */
  text: string;
  /** Ids that must each get a response (requests with a valid id, batches included). */
  expect: string[];
  /** What it is, for the failure report. */
  label: string;
}

export interface FaceSpec {
  /** Method name → param name → valid-ish values to mix with hostile ones. */
  methods: Record<string, Record<string, fc.Arbitrary<unknown>>>;
}

let counter = 0;
const nextId = () => `fz-${++counter}`;

/** Folders a client might send as a session cwd, most of them hostile. */
export function hostileCwd(workspace: string): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(
      '/proc/self',
      '/proc',
      '/proc/self/cwd',
      '/proc/1/root',
      '/sys',
      '/sys/kernel',
      '/dev',
      '/dev/null',
      '/dev/zero',
      '/dev/stdin',
      '/dev/shm',
      '/',
      '//',
      `${workspace}/../../..`,
      `${workspace}/.`,
      'relative',
      '.',
      '..',
      '',
      '~',
      `${workspace}\nx`,
      `${workspace}\u0000x`,
      `${workspace}/nope/deeper`,
      `/${'a'.repeat(5000)}`,
      `/${'b'.repeat(300)}`,
      '/etc/passwd',
      workspace,
      `${workspace}/`,
    ),
    fc.string({ maxLength: 40 }).map((tail) => `/${tail}`),
    fc.string({ maxLength: 20 }),
    fc.anything({ maxDepth: 2 }),
  );
}

/** A value of any JSON type, usually wrong for whatever param it lands in. */
const anyJson = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1e308, '', '0', [], {}) },
);

function paramsFor(spec: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const entries = Object.entries(spec);
  if (entries.length === 0) return fc.oneof(fc.constant({}), anyJson);
  // Each param: a plausible value, a wrong-typed one, or missing.
  const record = fc.tuple(
    ...entries.map(([name, valid]) =>
      fc.oneof({ weight: 3, arbitrary: valid.map((value) => [name, value] as const) }, { weight: 2, arbitrary: anyJson.map((value) => [name, value] as const) }, { weight: 1, arbitrary: fc.constant(undefined) }),
    ),
  );
  return fc.oneof(
    { weight: 8, arbitrary: record.map((pairs) => Object.fromEntries(pairs.filter((pair): pair is readonly [string, unknown] => pair !== undefined))) },
    { weight: 1, arbitrary: anyJson },
  );
}

/** A well-formed request of the face, with params mixing valid and wrong-typed values. */
function request(spec: FaceSpec): fc.Arbitrary<HostileLine> {
  const methods = Object.keys(spec.methods);
  return fc
    .constantFrom(...methods)
    .chain((method) => paramsFor(spec.methods[method]!).map((params) => ({ method, params })))
    .map(({ method, params }) => {
      const id = nextId();
      return { text: JSON.stringify({ jsonrpc: '2.0', id, method, params }), expect: [id], label: `request ${method}` };
    });
}

/** Envelope mutations: wrong jsonrpc, method types, id types, missing fields. */
function badEnvelope(spec: FaceSpec): fc.Arbitrary<HostileLine> {
  const methods = Object.keys(spec.methods);
  return fc
    .record({
      jsonrpc: fc.oneof(fc.constant('2.0'), fc.constantFrom('1.0', '2', 2, null, undefined)),
      method: fc.oneof(fc.constantFrom(...methods), fc.constantFrom(5, null, {}, [], true, undefined, '', 'no/such_method')),
      params: fc.oneof(fc.constant({}), anyJson, fc.constant(undefined)),
      idKind: fc.constantFrom('string', 'number', 'object', 'bool', 'none'),
    })
    .map(({ jsonrpc, method, params, idKind }) => {
      const id = nextId();
      const idValue = idKind === 'string' ? id : idKind === 'number' ? Number(id.slice(3)) + 1_000_000 : idKind === 'object' ? { id } : idKind === 'bool' ? true : undefined;
      const message: Record<string, unknown> = { id: idValue, method, params, jsonrpc };
      for (const key of Object.keys(message)) if (message[key] === undefined) delete message[key];
      // Only string ids are tracked: a numeric one may collide with the SDK's own counters.
      return { text: JSON.stringify(message), expect: idKind === 'string' ? [id] : [], label: `envelope ${JSON.stringify(message).slice(0, 80)}` };
    });
}

/** Deep nesting: as the id, inside params, or bare. */
const deep: fc.Arbitrary<HostileLine> = fc
  .record({ depth: fc.integer({ min: 100, max: 6000 }), where: fc.constantFrom('id', 'params', 'bare'), open: fc.constantFrom('[', '{"a":') })
  .map(({ depth, where, open }) => {
    const close = open === '[' ? ']' : '}';
    const nested = `${open.repeat(depth)}1${close.repeat(depth)}`;
    const id = nextId();
    if (where === 'id') return { text: `{"jsonrpc":"2.0","id":${nested},"method":"x"}`, expect: [], label: `deep id ${depth}` };
    if (where === 'bare') return { text: nested, expect: [], label: `deep bare ${depth}` };
    return { text: `{"jsonrpc":"2.0","id":"${id}","method":"x","params":{"v":${nested}}}`, expect: [id], label: `deep params ${depth}` };
  });

/** Text that is not JSON, or JSON cut short. */
const malformed: fc.Arbitrary<HostileLine> = fc
  .oneof(
    fc.string({ maxLength: 200 }).filter((text) => !text.includes('\n') && !text.includes('\r')),
    fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)).map((text) => text.slice(0, Math.max(1, Math.floor(text.length / 2)))),
    fc.constantFrom('{', '}', '[', '"', '{"jsonrpc":"2.0","id":"x"', 'null', 'true', '123', '"str"', '\u0000', '{}', '[]'),
  )
  .map((text) => ({ text: text.replace(/[\n\r\u2028\u2029]/g, ' '), expect: [], label: `malformed ${JSON.stringify(text).slice(0, 60)}` }));

/** A batch of requests (answered as a batch) and notifications. */
function batch(spec: FaceSpec): fc.Arbitrary<HostileLine> {
  return fc.array(fc.oneof(request(spec), malformed), { minLength: 0, maxLength: 4 }).map((lines) => {
    const parts = lines.map((line) => {
      try {
        return JSON.parse(line.text) as unknown;
      } catch {
        return line.text;
      }
    });
    return { text: JSON.stringify(parts), expect: lines.flatMap((line) => line.expect), label: `batch of ${lines.length}` };
  });
}

/** A line over `maxBytes` (the fuzz CLIs run with a small limit so this stays cheap). */
function oversized(maxBytes: number): fc.Arbitrary<HostileLine> {
  return fc.record({ extra: fc.integer({ min: 1, max: maxBytes }), idFirst: fc.boolean() }).map(({ extra, idFirst }) => {
    const id = nextId();
    const filler = 'x'.repeat(maxBytes + extra);
    const text = idFirst ? `{"jsonrpc":"2.0","id":"${id}","method":"x","params":{"f":"${filler}"}}` : `{"params":{"f":"${filler}"},"jsonrpc":"2.0","id":"${id}","method":"x"}`;
    // Recovered only when the id comes before the filler.
    return { text, expect: idFirst ? [id] : [], label: `oversized ${text.length}` };
  });
}

/** Everything at once, weighted toward requests with wrong params. */
export function hostileLine(spec: FaceSpec, options: { maxBytes: number; batchAnsweredPerRequest?: boolean }): fc.Arbitrary<HostileLine> {
  // Where the SDK answers a batch itself with one id-less error (ACP over WebSocket), its ids are not tracked.
  const batches = options.batchAnsweredPerRequest === false ? batch(spec).map((line) => ({ ...line, expect: [] })) : batch(spec);
  return fc
    .oneof(
      { weight: 6, arbitrary: request(spec) },
      { weight: 3, arbitrary: badEnvelope(spec) },
      { weight: 2, arbitrary: malformed },
      { weight: 1, arbitrary: deep },
      { weight: 1, arbitrary: batches },
      { weight: 1, arbitrary: oversized(options.maxBytes) },
    )
    // A counterexample prints as its label and the head of its text, not 100 KB of filler.
    .map((line) => Object.assign(line, { [fc.toStringMethod]: () => `${line.label}: ${line.text.slice(0, 200)}` }));
}

export function fuzzSettings(): { numRuns: number; seed: number } {
  const runs = Number(process.env.FUZZ_RUNS || 'NaN');
  const seed = Number(process.env.FUZZ_SEED || 'NaN');
  return { numRuns: Number.isInteger(runs) && runs > 0 ? runs : 25, seed: Number.isInteger(seed) ? seed : 20261125 };
}
