import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { hashedAssets } from './dashboard-assets.js';

/** The project root, whether this runs from src/ (tests) or dist/src/ (npm start). */
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.basename(path.dirname(here)) === 'dist' ? path.resolve(here, '../..') : path.resolve(here, '..');
/** Where `npm run build` puts the dashboard (vite build of web/). */
export const DASHBOARD_DIR = path.join(root, 'dist/web');

/**
 * GET / serves the dashboard: the built files, and index.html for any other
 * page path (the dashboard routes with #, so this only catches reloads of a
 * bookmarked path). /graphql and /healthz are mounted before this.
 */
export function serveDashboard(app: Express): void {
  app.use(hashedAssets(DASHBOARD_DIR));
  app.use(express.static(DASHBOARD_DIR, { index: 'index.html', fallthrough: true, maxAge: '1h', setHeaders: noCacheForIndex }));
  app.use((req, res, next) => {
    if (req.method !== 'GET' || req.path.startsWith('/graphql') || !req.accepts('html')) return next();
    const index = path.join(DASHBOARD_DIR, 'index.html');
    if (!fs.existsSync(index)) {
      res.status(503).type('text/plain').send('The dashboard is not built: run `npm run build` (npm start and npm test build it).');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
}

/** index.html names the hashed bundles; it must be fetched fresh so a new build is picked up. */
function noCacheForIndex(res: express.Response, file: string): void {
  if (file.endsWith('index.html')) res.setHeader('Cache-Control', 'no-cache');
}
