// The rate limiter of the workbench's Cloudflare Pages deployment.
//
// Pages cannot declare a rate-limiting binding, so this Worker holds it
// (wrangler.toml beside this file: RL, the same limit and period as the
// Worker deployment's) and the Pages project binds this Worker as its own
// RL through a service binding. The Go Worker calls `env.RL.limit({ key })`
// either way: here that is an RPC call to limit below, which asks the real
// binding and answers with the same { success } shape.
//
// The Worker has no public route of its own (workers_dev = false): only a
// service binding reaches it.
import { WorkerEntrypoint } from "cloudflare:workers";

export default class Limiter extends WorkerEntrypoint {
  async limit(options) {
    const key = String(options && options.key);
    const { success } = await this.env.RL.limit({ key });
    return { success };
  }

  fetch() {
    return new Response("the workbench's rate limiter answers service-binding calls only\n", { status: 404 });
  }
}
