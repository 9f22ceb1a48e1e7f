import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { NextFunction, Request, Response } from 'express';

/** A year: the bundles' names carry their content hash, so a new build has new names and an old name never changes. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.woff2': 'font/woff2' };
const COMPRESSIBLE = new Set(['.js', '.css', '.svg']);

interface Asset { type: string; raw: Buffer; gzip: Buffer | null; brotli: Buffer | null }

/**
 * The compressed copy the dashboard's build wrote beside a bundle (web/vite.config.ts), when it is as new as the bundle:
 * so a page's first request does not wait for brotli's strongest setting, which costs a busy machine hundreds of milliseconds.
 */
function builtBeside(file: string, suffix: '.br' | '.gz'): Buffer | null {
  const packed = `${file}${suffix}`;
  try {
    return fs.statSync(packed).mtimeMs >= fs.statSync(file).mtimeMs ? fs.readFileSync(packed) : null;
  } catch {
    return null;
  }
}

/**
 * The dashboard's hashed bundles (/assets/*), compressed by the build (or
 * here, once per file, when it wrote no copy) and kept in memory (they are a few tens of kB), with long cache lifetimes:
 * brotli or gzip when the browser accepts it, the file as built otherwise.
 * Other paths fall through to the static files.
 */
export function hashedAssets(dir: string): (req: Request, res: Response, next: NextFunction) => void {
  const assetsDir = path.join(dir, 'assets');
  const cache = new Map<string, Asset>();
  const load = (name: string): Asset | null => {
    const cached = cache.get(name);
    if (cached) return cached;
    const file = path.join(assetsDir, name);
    if (!/^[\w.-]+$/.test(name) || !fs.existsSync(file)) return null;
    const ext = path.extname(name);
    const raw = fs.readFileSync(file);
    const packed = COMPRESSIBLE.has(ext);
    const asset: Asset = {
      type: TYPES[ext] ?? 'application/octet-stream',
      raw,
      gzip: packed ? builtBeside(file, '.gz') ?? zlib.gzipSync(raw, { level: 9 }) : null,
      brotli: packed ? builtBeside(file, '.br') ?? zlib.brotliCompressSync(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }) : null,
    };
    cache.set(name, asset);
    return asset;
  };
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.path.startsWith('/assets/')) return next();
    const asset = load(req.path.slice('/assets/'.length));
    // A name no build has (or an older build's): 404, never the page in place of a script.
    if (!asset) return void res.status(404).type('text/plain').send('No such dashboard file: reload the page to get the current build.');
    // Brotli whenever it is accepted at all (smaller than gzip for these files), whatever order the browser lists them in.
    const encoding = !asset.brotli ? null : req.acceptsEncodings('br') === 'br' ? 'br' : req.acceptsEncodings('gzip') === 'gzip' ? 'gzip' : null;
    const body = encoding === 'br' ? asset.brotli! : encoding === 'gzip' ? asset.gzip! : asset.raw;
    res.setHeader('Content-Type', asset.type);
    res.setHeader('Cache-Control', IMMUTABLE);
    res.setHeader('Vary', 'Accept-Encoding');
    if (encoding === 'br' || encoding === 'gzip') res.setHeader('Content-Encoding', encoding);
    res.setHeader('Content-Length', String(body.length));
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
