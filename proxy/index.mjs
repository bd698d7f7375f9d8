// The Worker's entry module: two Go programs, each with syumai/workers'
// glue, in one Worker. Requests under /api/registry/ go to the registry's
// program (proxy/registry), every other /api/ request to the proxy's
// (proxy/). The registry links the verifier, whose packages take CPU to
// start on every request; the proxy's requests do not pay for it
// (docs/registry.md, "Two Worker programs"). `make worker` copies this
// file to build/worker/index.mjs beside both programs.
import proxy from "./worker.mjs";
import registry from "./registry/worker.mjs";

export default {
  fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    const program = pathname.startsWith("/api/registry/") ? registry : proxy;
    return program.fetch(request, env, ctx);
  },
};
