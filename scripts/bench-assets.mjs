// What the browser downloads, page by page and step by step, counted from the network (every
// response of the app's own assets) with each file's gzip -9 size as served precompressed
// (dist/*.gz). Prints one line per step and the files it added. Not part of the test suite:
// run through scripts/bench-assets.sh (after a release build of the app).
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { startServer, launchBrowser, root, tempDir, scorebench } from '../tests/e2e/support.mjs';

const dist = join(root, 'dist');

/** gzip size of a dist file (its .gz sibling when the build wrote one). */
function gzipKb(name) {
  const gz = join(dist, `${name}.gz`);
  const bytes = existsSync(gz) ? statSync(gz).size : gzipSync(readFileSync(join(dist, name)), { level: 9 }).length;
  return bytes / 1000;
}

/** Records the app's files a page fetches (scripts, wasm, CSS), in order, without repeats. */
function recorder(page) {
  const seen = [];
  page.on('response', (r) => {
    const name = new URL(r.url()).pathname.slice(1);
    if (/\.(wasm|js|css)$/.test(name) && existsSync(join(dist, name)) && !seen.includes(name)) seen.push(name);
  });
  return seen;
}

function line(step, names, from) {
  const added = names.slice(from);
  const kb = added.reduce((s, n) => s + gzipKb(n), 0);
  const total = names.reduce((s, n) => s + gzipKb(n), 0);
  const list = added.map((n) => `${n.replace(/-[0-9a-f]{8,}/, '')} ${gzipKb(n).toFixed(0)}`).join(', ');
  console.log(`${step.padEnd(44)} +${kb.toFixed(0).padStart(4)} KB  (total ${total.toFixed(0).padStart(4)} KB)  ${list}`);
  return names.length;
}

const server = await startServer();
const browser = await launchBrowser();
try {
  console.log('asset sizes are gzip -9 (KB = 1000 bytes); "total" is everything the page has loaded so far');
  {
    const page = await browser.newPage();
    const names = recorder(page);
    await page.goto(server.url, { waitUntil: 'networkidle' });
    let n = line('workbench: first paint', names, 0);
    await page.locator('.outcomes').waitFor({ state: 'attached' }); // the app is mounted
  await page.evaluate(() => document.body.dispatchEvent(new DragEvent('dragenter', { bubbles: true })));
    await page.locator('.outcomes[data-ready="true"]').waitFor({ state: 'attached' });
    n = line('workbench: a file dragged in (worker)', names, n);
    const file = join(tempDir('assets'), 'predictions.jsonl');
    writeFileSync(file, [0, 1, 2, 3].map((i) => JSON.stringify({ id: `r${i}`, gold: i, pred: i % 3 })).join('\n') + '\n');
    await page.locator('[data-testid="file-input"]').setInputFiles(file);
    await page.locator('[data-metric="qwk"][data-subset="overall"]').first().waitFor();
    await page.waitForLoadState('networkidle');
    n = line('workbench: scored, charts and samples shown', names, n);
    await page.close();
  }
  {
    // A board with one entry (the EOTGC golden case), made with the CLI.
    const gold = join(root, 'tests', 'golden', 'eotgc', 'eotgc_11_full_size_185');
    const lb = (...args) => JSON.parse(execFileSync(scorebench,
      ['leaderboard', ...args, '--server', server.url.replace(/\/$/, '')], { cwd: gold, encoding: 'utf8' }));
    lb('create', '--slug', 'assets', '--title', 'assets', '--benchmark', 'eotgc', 'gold.json');
    const { entry } = lb('submit', '--slug', 'assets', '--model', 'm', 'pred.json');
    const page = await browser.newPage();
    const names = recorder(page);
    await page.goto(`${server.url}leaderboards`, { waitUntil: 'networkidle' });
    let n = line('leaderboards list: first paint', names, 0);
    await page.goto(`${server.url}leaderboard/assets`, { waitUntil: 'networkidle' });
    n = line('a board: first paint (cached assets not counted)', names, n);
    await page.goto(`${server.url}leaderboard/assets/entry/${entry}`, { waitUntil: 'networkidle' });
    n = line('an entry: first paint', names, n);
    await page.locator('[data-testid=verify]').click();
    await page.locator('[data-testid=verified-ok]').waitFor({ timeout: 60_000 });
    line('an entry: verified in the browser (worker)', names, n);
    await page.close();
  }
} finally {
  await browser.close();
  await server.stop();
}
