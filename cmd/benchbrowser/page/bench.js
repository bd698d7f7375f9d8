// The page side of cmd/benchbrowser: it loads canonjson compiled to wasm
// and the canonicalize package, and exposes runCheck and runBench for the
// driver to call. Both resolve to a JSON string.
import canonicalize from './canonicalize.js';

const status = (s) => { document.getElementById('status').textContent = s; };

async function loadWasm() {
  const go = new Go();
  const { instance } = await WebAssembly.instantiateStreaming(fetch('canon.wasm'), go.importObject);
  go.run(instance); // main sets globalThis.canonjson, then blocks
  for (let i = 0; i < 100 && !globalThis.canonjson; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  if (!globalThis.canonjson) throw new Error('wasm did not start');
}

function wasmCanonical(bytes, ...omit) {
  const out = globalThis.canonjson.canonicalize(bytes, ...omit);
  if (out instanceof Error) throw out;
  return out;
}

// wasmSealWebCrypto canonicalizes in wasm and hashes with the browser's
// own SHA-256, as the JavaScript seal does.
async function wasmSealWebCrypto(bytes) {
  const canonical = wasmCanonical(bytes, 'content_hash', 'signature');
  return 'sha256:' + hex(await crypto.subtle.digest('SHA-256', canonical));
}

function wasmSeal(bytes) {
  const out = globalThis.canonjson.seal(bytes);
  if (out instanceof Error) throw out;
  return out;
}

function hex(buf) {
  return Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
}

// jsSeal is sealing with the JavaScript package: parse, drop the members
// the hash leaves out, canonicalize, encode, SHA-256 with WebCrypto.
async function jsSeal(text) {
  const obj = JSON.parse(text);
  delete obj.content_hash;
  delete obj.signature;
  const bytes = new TextEncoder().encode(canonicalize(obj));
  return 'sha256:' + hex(await crypto.subtle.digest('SHA-256', bytes));
}

function firstDifference(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

// compare canonicalizes one document both ways and reports where the
// outputs differ (-1 when they are byte-identical).
function compare(text) {
  const bytes = new TextEncoder().encode(text);
  const wasm = wasmCanonical(bytes);
  const js = new TextEncoder().encode(canonicalize(JSON.parse(text)));
  return { size: bytes.length, outSize: wasm.length, diff: firstDifference(wasm, js) };
}

globalThis.runCheck = async function runCheck() {
  const docs = await (await fetch('check.json')).json();
  const results = docs.map((text, i) => {
    try {
      return { index: i, ...compare(text) };
    } catch (e) {
      return { index: i, error: String(e) };
    }
  });
  return JSON.stringify({ userAgent: navigator.userAgent, results });
};

globalThis.runBench = async function runBench(runs) {
  const bytes = new Uint8Array(await (await fetch('doc.json')).arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  const parsed = JSON.parse(text);
  const check = compare(text);
  const sealWasm = wasmSeal(bytes);
  const sealJS = await jsSeal(text);
  const sealWasmWebCrypto = await wasmSealWebCrypto(bytes);

  const cases = [
    { name: 'wasm canonjson: canonicalize (bytes in, bytes out)', fn: () => wasmCanonical(bytes) },
    { name: 'wasm canonjson: seal (canonicalize + Go SHA-256 in wasm)', fn: () => wasmSeal(bytes) },
    { name: 'wasm canonjson: seal (canonicalize + WebCrypto SHA-256)', fn: () => wasmSealWebCrypto(bytes) },
    { name: 'JS canonicalize: JSON.parse + canonicalize', fn: () => canonicalize(JSON.parse(text)) },
    { name: 'JS canonicalize: seal (parse + canonicalize + WebCrypto SHA-256)', fn: () => jsSeal(text) },
    { name: 'JS canonicalize: canonicalize alone (already parsed)', fn: () => canonicalize(parsed) },
  ];
  for (const c of cases) {
    c.times = [];
    for (let i = 0; i < 2; i++) await c.fn(); // warm up
  }
  // Interleave the cases so that drift in the machine's speed hits all alike.
  for (let r = 0; r < runs; r++) {
    for (const c of cases) {
      status(`run ${r + 1}/${runs}: ${c.name}`);
      const t0 = performance.now();
      await c.fn();
      c.times.push(performance.now() - t0);
    }
  }
  status('done');
  return JSON.stringify({
    userAgent: navigator.userAgent,
    size: bytes.length,
    check,
    sealWasm,
    sealJS,
    sealWasmWebCrypto,
    cases: cases.map(({ name, times }) => ({ name, times })),
  });
};

loadWasm().then(() => { globalThis.pageReady = true; status('ready'); },
  (e) => { globalThis.pageError = String(e); status('error: ' + e); });
