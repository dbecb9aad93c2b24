// Measures the browser workbench against the native CLI on a generated gold/pred JSONL file
// (RECORDS records, ~1 KB each: 100,000 → ~100 MB): drop → first number on screen, → charts on
// screen, and `scorebench score pairs FILE --json` whole-process, side by side in each run (the
// machine may be loaded: the ratio is taken in the same run). Also prints where the page's time
// goes (the worker's and page's own timestamps), the tab's memory and the app's asset sizes.
// Prints the figures; not part of the test suite. Run through scripts/bench-workbench.sh.
// DISTS=dirA,dirB compares builds of the page (e.g. a copy of dist/ before a change and dist/
// after it): a server for each, their runs interleaved (A B, B A, …) so that both meet the same
// machine; each build's medians, and its page time as a ratio of the first build's.
import { writeFileSync, statSync, readdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startServer, launchBrowser, tempDir, root, scorebench, chromiumRssKb } from '../tests/e2e/support.mjs';

const RECORDS = Number(process.env.RECORDS ?? 100_000);
const RUNS = Number(process.env.RUNS ?? 3);
const CHARTS = process.env.CHARTS !== '0';
// FRESH=1: each run in a new browser (a new profile: no cache, no storage: a first visit), the worker
// ready before the drop. LOAD=1: another process keeps one core busy for the whole run.
const FRESH = process.env.FRESH === '1';
const LOAD = process.env.LOAD === '1';
// DRAG=1: the drop comes as the drag enters the window, not once the worker is ready; the time
// is counted from the drag (the worker's start and warm-up included).
const DRAG = process.env.DRAG === '1';
// SETTLE=ms: wait that long between the worker's ready and the drop.
const SETTLE = Number(process.env.SETTLE ?? 0);

function generate(path) {
  // Deterministic 0..10 scores with long free-text fields (questions and replies are what make
  // real prediction files big): about 1 KB per record. Written in blocks (1 GB files fit).
  const filler = '这是一个用于测量的长文本字段。The reply explains each step of the solution in detail. '.repeat(9);
  let x = 12345;
  writeFileSync(path, '');
  const BLOCK = 50_000;
  for (let start = 0; start < RECORDS; start += BLOCK) {
    const lines = [];
    for (let i = start; i < Math.min(RECORDS, start + BLOCK); i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const gold = x % 11;
      const pred = Math.max(0, Math.min(10, gold + ((x >> 8) % 5) - 2));
      lines.push(JSON.stringify({ id: `r${i}`, gold, pred, question: `q${i % 1000}`, reply: filler }));
    }
    writeFileSync(path, lines.join('\n') + '\n', { flag: 'a' });
  }
}

function cli(file) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', scorebench, 'score', 'pairs', file, '--json'],
    { encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`CLI failed: ${r.stderr}`);
  const peakKb = Number(r.stderr.trim().split('\n').pop());
  return { ms, peakKb, report: JSON.parse(r.stdout) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (bytes) => (bytes / 1e6).toFixed(1);

// What the page loads: index.html's scripts, wasm and CSS (gzip -9, as served precompressed).
function assetSizes(dist) {
  const files = readdirSync(dist).filter((f) => /\.(wasm|js|css)$/.test(f));
  let total = 0;
  const parts = files.map((f) => {
    const gz = existsSync(join(dist, `${f}.gz`))
      ? statSync(join(dist, `${f}.gz`)).size
      : gzipSync(readFileSync(join(dist, f)), { level: 9 }).length;
    total += gz;
    return `${f.replace(/-[0-9a-f]{16}/, '')} ${(gz / 1000).toFixed(0)} KB`;
  });
  return `assets (gzip -9): ${parts.join(', ')}; total ${(total / 1000).toFixed(0)} KB`;
}

const dir = tempDir('bench');
const file = join(dir, 'big_predictions.jsonl');
generate(file);
const size = statSync(file).size;
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}, ${RECORDS} records, ${mb(size)} MB`);
const DISTS = (process.env.DISTS ?? join(root, 'dist')).split(',');
for (const dist of DISTS) console.log(`${DISTS.length > 1 ? `${dist}: ` : ''}${assetSizes(dist)}`);
const servers = [];
for (const dist of DISTS) servers.push(await startServer({ dist }));
let browser = await launchBrowser();
const busy = LOAD
  ? spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })
  : null;
if (busy) console.log('another process keeps one core busy (LOAD=1)');
if (FRESH) console.log('each run in a fresh browser, a new profile (FRESH=1)');
if (DRAG) console.log('the drop as the drag enters, timed from the drag (DRAG=1)');
const results = DISTS.map(() => []);
let fresh = true;
for (let run = 0; run < RUNS; run++) {
  const order = DISTS.map((_, i) => i);
  if (run % 2 === 1) order.reverse();
  for (const which of order) await measure(run, which);
}

async function measure(run, which) {
  const server = servers[which];
  const native = cli(file);
  if (FRESH && !fresh) {
    await browser.close();
    browser = await launchBrowser();
  }
  fresh = false;
  const page = await browser.newPage();
  await page.goto(server.url);
  // The page loads its worker when a drag enters the window (as a person's drag does, long
  // before the drop); the measured time starts at the drop.
  await page.locator('.outcomes').waitFor({ state: 'attached' }); // the app is mounted
  const observe = () => page.evaluate(() => {
    const cell = '[data-metric="qwk"][data-subset="overall"]';
    new MutationObserver((_, observer) => {
      if (!document.querySelector(cell)) return;
      observer.disconnect();
      requestAnimationFrame(() => { window.firstNumberAt = Date.now(); });
    }).observe(document.body, { childList: true, subtree: true });
  });
  if (DRAG) await observe();
  const dragged = Date.now();
  await page.evaluate(() => document.body.dispatchEvent(new DragEvent('dragenter', { bubbles: true })));
  if (!DRAG) await page.locator('.outcomes[data-ready="true"]').waitFor({ state: 'attached' });
  if (SETTLE > 0) await page.waitForTimeout(SETTLE);
  const idleRss = chromiumRssKb();
  let peakRss = idleRss;
  const sampler = setInterval(() => { peakRss = Math.max(peakRss, chromiumRssKb()); }, 100);
  // The first number's frame, stamped in the page (Playwright's own polling may run only after
  // the page's next busy task, e.g. decoding the sample rows that follow the table).
  if (!DRAG) await observe();
  const t0 = DRAG ? dragged : Date.now();
  await page.setInputFiles('input[type=file]', file);
  await page.locator('[data-metric="qwk"][data-subset="overall"]').waitFor({ timeout: 600_000 });
  await page.waitForFunction(() => window.firstNumberAt !== undefined);
  const table = (await page.evaluate(() => window.firstNumberAt)) - t0;
  // Same numbers as the CLI.
  const qwk = JSON.parse(await page.locator('[data-metric="qwk"][data-subset="overall"]').getAttribute('data-value'));
  const same = qwk === native.report.overall.metrics.qwk;
  let charts = null;
  if (CHARTS) {
    await page.click('button[data-tab="charts"]');
    await page.locator('figure.chart svg').first().waitFor({ timeout: 600_000 });
    charts = Date.now() - t0;
  }
  clearInterval(sampler);
  const phases = JSON.parse((await page.locator('.timing').getAttribute('data-phases')) || '[]');
  const heap = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null);
  let prev = t0;
  const steps = phases.map(([step, at]) => { const s = `${step} +${Math.round(at - prev)}`; prev = at; return s; });
  steps.push(`table on screen +${Math.round(t0 + table - prev)}`);
  results[which].push({ table, charts, cli: native.ms, peakRss, idleRss, cliPeak: native.peakKb });
  const build = DISTS.length > 1 ? ` (${DISTS[which]})` : '';
  console.log(`run ${run + 1}${build}: CLI ${native.ms.toFixed(0)} ms (peak RSS ${mb(native.peakKb * 1024)} MB); ` +
    `page: first number ${table} ms (${(table / native.ms).toFixed(2)}× CLI)` +
    (charts === null ? '' : `, charts ${charts} ms`) +
    `; Chromium RSS peak ${mb(peakRss * 1024)} MB (${mb(idleRss * 1024)} MB before the drop), page JS heap ${heap === null ? '?' : mb(heap)} MB; ` +
    `qwk ${same ? 'same as' : 'DIFFERS from'} the CLI\n  ms: ${steps.join(', ')}`);
  await page.close();
}
if (busy) busy.kill();
await browser.close();
for (const server of servers) await server.stop();
rmSync(dir, { recursive: true, force: true }); // the generated file (1 GB at 1M records)
const baseline = median(results[0].map((r) => r.table));
DISTS.forEach((dist, which) => summary(results[which], DISTS.length > 1 ? ` (${dist})` : '', baseline));

function summary(results, build, baseline) {
  const mt = median(results.map((r) => r.table));
  const mc = median(results.map((r) => r.cli));
  console.log(`\n${RECORDS} records, ${mb(size)} MB${build}${FRESH ? ', fresh browsers' : ''}${LOAD ? ', one core busy' : ''}${DRAG ? ', dropped as dragged' : ''}, medians of ${RUNS}: CLI ${mc.toFixed(0)} ms, ` +
    `page first number ${mt} ms, ratio ${(mt / mc).toFixed(2)}× (goal ≤ 2×)` +
    (CHARTS ? `, page table+charts ${median(results.map((r) => r.charts))} ms` : '') +
    `; Chromium peak RSS ${mb(median(results.map((r) => r.peakRss)) * 1024)} MB ` +
    `(${(median(results.map((r) => r.peakRss)) * 1024 / size).toFixed(2)}× the file; ` +
    `${(median(results.map((r) => r.peakRss - r.idleRss)) * 1024 / size).toFixed(2)}× above the idle tab), ` +
    `CLI peak RSS ${mb(median(results.map((r) => r.cliPeak)) * 1024)} MB`);
  if (build) {
    console.log(`  page first number ${(median(results.map((r) => r.table)) / baseline).toFixed(2)}× the first build's`);
  }
}
