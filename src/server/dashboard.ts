import fs from 'node:fs';
import path from 'node:path';
import type { Express, Response } from 'express';
import { hashedAssets } from './dashboard-assets.js';
import { PACKAGE_ROOT } from '../package-root.js';

/** Where `npm run build` puts the dashboard (vite build of web/). */
const DASHBOARD_DIR = path.join(PACKAGE_ROOT, 'dist/web');

/** The dashboard's views (web/src/main.tsx routes by hash: #/domains/…, #/task/…, #/sessions/…, #/maintenance/…). */
const VIEWS = new Set(['domains', 'task', 'sessions', 'maintenance']);

/**
 * What the dashboard's page may do, said to the browser: its own bundles
 * and styles only (Vite's build has no inline script), fetches and the
 * graphql-ws socket to this server only, no frames around it, no plugins,
 * no <base> that would send its links elsewhere, no referrer to leak a
 * task id. The socket's ws:/wss: URL is named as well as 'self', for
 * browsers that do not count ws: as same-origin; the Host it names has
 * passed the Host policy (http-edge.ts) already.
 */
function contentSecurityPolicy(host: string | undefined): string {
  const socket = host ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", `connect-src 'self'${socket}`,
    "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
  ].join('; ');
}

function dashboardHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', contentSecurityPolicy(res.req.headers.host));
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
}

/**
 * GET / serves the dashboard: index.html and its built assets, with the
 * headers above. It routes with #, so a path such as /domains/acme (a
 * hand-typed link) is sent to /#/domains/acme; any other path is not the
 * dashboard's and falls through to the server's 404 JSON, so an API client
 * never mistakes the page for an answer. /graphql, /mcp and /healthz are
 * mounted before this.
 */
export function serveDashboard(app: Express): void {
  app.get(['/', '/index.html'], (_req, res) => {
    const index = path.join(DASHBOARD_DIR, 'index.html');
    if (!fs.existsSync(index)) {
      res.status(503).type('text/plain').send('The dashboard is not built: run `npm run build` (npm start and npm test build it).');
      return;
    }
    dashboardHeaders(res);
    // index.html names the hashed bundles; it must be fetched fresh so a new build is picked up.
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  // The hashed bundles, compressed once, with the page's headers (dashboard-assets.ts).
  const assets = hashedAssets(DASHBOARD_DIR);
  app.use((req, res, next) => {
    if (req.path.startsWith('/assets/')) dashboardHeaders(res);
    assets(req, res, next);
  });
  app.get('/{*rest}', (req, res, next) => {
    const view = req.path.split('/')[1];
    if (!VIEWS.has(view) || !req.accepts('html')) return next();
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
    res.redirect(302, `/#${req.path}${query}`);
  });
}
