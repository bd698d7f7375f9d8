// The import worker's loader (package importworker, cmd/importer): Go's
// wasm_exec.js, then importer.wasm at the version the page names in this
// script's query. Whatever stops the worker is posted to the page as the
// reason it cannot import, so an import fails with that reason.
"use strict";

const fail = (why) => postMessage(JSON.stringify({ kind: "failed", error: String(why && why.message ? why.message : why) }));

try {
  importScripts("/wasm_exec.js");
  const go = new Go();
  const query = new URL(self.location.href).searchParams;
  const version = query.get("v") || "";
  // A worker started again after a failure asks the server, not the
  // cache: a failed answer may be kept under the module's immutable rule.
  fetch("/web/importer.wasm?v=" + encodeURIComponent(version), query.has("again") ? { cache: "reload" } : {})
    .then((r) => {
      if (!r.ok) {
        throw new Error("HTTP " + r.status);
      }
      return WebAssembly.instantiateStreaming(r, go.importObject);
    })
    .catch((err) => {
      throw new Error("/web/importer.wasm could not be loaded: " + (err && err.message ? err.message : err));
    })
    .then((r) => go.run(r.instance))
    .then(() => fail("the import worker stopped"))
    .catch(fail);
} catch (err) {
  fail(err);
}
