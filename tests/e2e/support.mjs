// Shared pieces of the end-to-end tests: the real server on a free loopback port, the real CLI,
// and Debian's Chromium driven by playwright-core (tools/node_modules).
import { spawn, execFileSync } from 'node:child_process';
import { before, after } from 'node:test';
import { createRequire } from 'node:module';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(join(root, 'tools', 'package.json'));
const { chromium } = require('playwright-core');

export const scorebench = process.env.SCOREBENCH_BIN ?? join(root, 'target', 'debug', 'scorebench');
export const artifacts = join(root, 'tests', 'e2e', 'artifacts');
mkdirSync(artifacts, { recursive: true });

// Scratch directories go when the process ends (the browser and servers are stopped by then),
// unless KEEP_TEMP=1 (to look at what a failed test left).
const scratch = [];
process.on('exit', () => {
  if (process.env.KEEP_TEMP === '1') return;
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(tag) {
  const dir = mkdtempSync(join(tmpdir(), `scorebench-e2e-${tag}-`));
  scratch.push(dir);
  return dir;
}

/** Runs `scorebench score … --json` and returns the parsed report. */
export function scoreJson(args) {
  return JSON.parse(execFileSync(scorebench, ['score', ...args, '--json'], { encoding: 'utf8' }));
}

/** Starts `scorebench serve` on 127.0.0.1:0 and resolves with { url, stop, child, db, dir }
 * (db: its SQLite file). With `upstreams` (TOML, see `upstreamToml`) it holds keys and runs:
 * `--config` and `--runs-dir` in `dir`, `env` added to its environment (the keys). Pass the
 * same `dir` to start it again on the same database. */
export async function startServer({ dist = join(root, 'dist'), upstreams, env = {}, dir, args: extra = [] } = {}) {
  dir ??= tempDir('server');
  const args = ['serve', '--addr', '127.0.0.1:0', '--db', join(dir, 'db.sqlite3'), '--dist', dist, ...extra];
  if (upstreams !== undefined) {
    const config = join(dir, 'upstreams.toml');
    writeFileSync(config, upstreams);
    args.push('--config', config, '--runs-dir', join(dir, 'runs'));
  }
  const child = spawn(scorebench, args, {
    stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env },
  });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not print its URL within 20 s')), 20_000);
    child.once('exit', (code) => reject(new Error(`server exited early with ${code}`)));
    lines.on('line', (line) => {
      const m = line.match(/^scorebench listening on (http:\/\/127\.0\.0\.1:\d+\/)$/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
  });
  const stop = () => new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
  return { url, stop, child, db: join(dir, 'db.sqlite3'), dir };
}

/** One `[[upstream]]` table of the server's configuration, from its fields
 * ({ name, base_url, api_key_env, models, max_concurrency, … }). */
export function upstreamToml(fields) {
  const lines = Object.entries(fields).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
  return `[[upstream]]\n${lines.join('\n')}\n`;
}

/** A mock OpenAI-compatible upstream on 127.0.0.1. `reply(request, req, send)` is called with
 * each parsed chat request: it returns what the model says (the content, or { content,
 * reasoning_content, finish_reason, usage }), or nothing and calls `send(said)` itself later (a
 * held call). Resolves with { url (its /v1 base), port, server, close }. */
export function startMockUpstream(reply) {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const request = JSON.parse(body);
      const send = (said) => {
        const m = typeof said === 'string' ? { content: said } : said;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({
          id: 'e2e', object: 'chat.completion', model: request.model,
          choices: [{ index: 0, finish_reason: m.finish_reason ?? 'stop',
            message: { role: 'assistant', content: m.content, reasoning_content: m.reasoning_content } }],
          usage: m.usage ?? { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }));
      };
      const said = reply(request, req, send);
      if (said !== undefined) send(said);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    resolve({ url: `http://127.0.0.1:${port}/v1`, port, server, close: () => server.close() });
  }));
}

/** Starts a server and a browser before a file's tests and stops both after them; the returned
 * object has { server, base (the URL without its last slash), browser } once `before` ran. */
export function serverAndBrowser(options = {}) {
  const env = {};
  before(async () => {
    env.server = await startServer(options);
    env.base = env.server.url.replace(/\/$/, '');
    env.browser = await launchBrowser();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.stop();
  });
  return env;
}

/** Resident memory (kB) of every process of the Chromium that `launchBrowser` started. */
export function chromiumRssKb() {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.includes('chromium') || !cmd.includes('scorebench-e2e-profile')) continue;
      const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
      if (m) total += Number(m[1]);
    } catch { /* gone */ }
  }
  return total;
}

/** Launches headless Debian Chromium with a fresh profile; only loopback is reached. */
export async function launchBrowser() {
  const context = await chromium.launchPersistentContext(tempDir('profile'), {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 },
  });
  return context;
}

/** A browser with one context sized like a device: `touch` makes it a phone or tablet (touch
 * events, mobile viewport, 3× pixels); `injects` lets the test add scripts to the page (axe-core)
 * past the server's Content-Security-Policy. Resolves with { browser, context }; close the
 * browser. */
export async function launchDevice({ width, height, touch = false, injects = false }) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({
    viewport: { width, height },
    hasTouch: touch,
    isMobile: touch,
    deviceScaleFactor: touch ? 3 : 1,
    bypassCSP: injects,
  });
  return { browser, context };
}

/** Every metric value on the page, as { "subset/metric": parsed data-value }. */
export async function pageMetrics(page, scope = 'body') {
  return page.$$eval(`${scope} [data-metric]`, (cells) => Object.fromEntries(
    cells.map((c) => [`${c.dataset.subset}/${c.dataset.metric}`, JSON.parse(c.dataset.value)])));
}
