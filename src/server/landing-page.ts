import type { RequestHandler } from 'express';

/** What `<`, `&` and quotes would break in HTML: the Host header is the caller's text. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * The page a browser gets for GET /graphql: what the endpoint is and how to
 * call it, in one self-contained file. Apollo's own landing page loads its
 * explorer from a CDN and is blank on a machine without internet; this one
 * loads nothing at all (its Content-Security-Policy says so to the browser).
 */
export function landingPage(): RequestHandler {
  return (req, res, next) => {
    // Only a browser asking for HTML gets the page; GET queries (?query=…) and API clients go on to GraphQL.
    if (req.query.query !== undefined || req.accepts(['application/json', 'text/html']) !== 'text/html') return next();
    const endpoint = escapeHtml(`${req.protocol}://${req.get('host') ?? '127.0.0.1:4000'}/graphql`);
    res
      .status(200)
      .set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
      .type('html')
      .send(page(endpoint));
  };
}

function page(endpoint: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>taskbase GraphQL endpoint</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1d232a; }
  pre { background: #f3f4f6; padding: 0.75rem 1rem; overflow-x: auto; border-radius: 4px; }
  code { font-family: ui-monospace, monospace; font-size: 0.9em; }
</style>
</head>
<body>
<h1>taskbase GraphQL endpoint</h1>
<p>This is <code>${endpoint}</code>, the GraphQL API of a taskbase knowledge base of tasks and agents' plans.
Send operations here with <code>POST</code> and a JSON body <code>{"query": "…", "variables": {…}}</code>
as <code>application/json</code>.</p>
<h2>Try it</h2>
<pre><code>curl -s ${endpoint} \\
  -H 'content-type: application/json' \\
  -d '{"query":"{ reminderSettings { enabled intervalMinutes } }"}'</code></pre>
<p>An agent names its session with the <code>x-session-id</code> header (start one with
<code>mutation { startSession { id } }</code>). When the server runs with tokens, add
<code>-H 'authorization: Bearer &lt;token&gt;'</code>.</p>
<h2>What is there</h2>
<p>Every type and field is described in the schema: ask for it with an introspection query, or read
<code>schema.graphql</code> in the taskbase repository. Refusals come back as errors with
<code>extensions.code</code> and a message that says what to send instead.</p>
<p><a href="/">Back to the start page</a> · <a href="/healthz">Health check</a></p>
</body>
</html>
`;
}
