// The workbench's browser body on Cloudflare: Playwright MCP for Workers
// (the @cloudflare/playwright-mcp package) over Browser Rendering, as a
// Worker of its own that the workbench Worker reaches through a service
// binding only (wrangler.toml beside this file; docs/deploy.md, "The
// browser body on Cloudflare").
//
// MCP's streamable HTTP transport is served at /mcp. Each MCP session is a
// Durable Object of its own (the package's agent), and each gets its own
// browser. The package's createMcpAgent makes one Playwright MCP
// connection — its MCP server and the browser it opens — per call and
// hands it to every instance of the class it returns; a browser opened in
// one session's Durable Object then cannot be used from another's ("Cannot
// perform I/O on behalf of a different Durable Object"). So BrowserMCP
// calls it once per instance, and each session's object is the agent of a
// connection of its own.
import { DurableObject } from "cloudflare:workers";
import { McpAgent } from "agents/mcp";
import { createMcpAgent } from "@cloudflare/playwright-mcp";

// The path the MCP endpoint answers on; the workbench Worker's MCP_SERVERS
// names it (browser=binding:BROWSER_MCP/mcp).
const path = "/mcp";

export class BrowserMCP extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    // A constructor may return the object to use instead of this one:
    // an agent whose connection is this instance's alone.
    const Agent = createMcpAgent(env.BROWSER);
    return new Agent(ctx, env);
  }
}

// The agent's router: a session's requests go to its Durable Object,
// through the namespace MCP_OBJECT (BrowserMCP).
const mcp = McpAgent.serve(path, { binding: "MCP_OBJECT" });

export default {
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname !== path) {
      return new Response("the workbench's browser body answers MCP at " + path + "\n", { status: 404 });
    }
    return mcp.fetch(request, env, ctx);
  },
};
