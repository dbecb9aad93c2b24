// Two models of the same benchmark, dropped one after the other: the comparison shows each
// model's metrics (equal to the CLI) and a paired bootstrap 95 % interval for every difference.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, launchBrowser, tempDir, artifacts, root, scorebench } from './support.mjs';

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test('comparing two EOTGC submissions shows bootstrap intervals', async () => {
  const dir = tempDir('compare');
  const src = join(root, 'tests', 'golden', 'eotgc', 'eotgc_11_full_size_185');
  copyFileSync(join(src, 'gold.json'), join(dir, 'gold.json'));
  copyFileSync(join(src, 'pred.json'), join(dir, 'model_a.json'));
  // Model B: every fifth essay's level moved one step (deterministic).
  const levels = ['不合格', '合格', '一般', '较好', '优秀'];
  const predA = JSON.parse(readFileSync(join(src, 'pred.json'), 'utf8'));
  const predB = predA.map((r, i) => {
    if (i % 5 !== 0) return r;
    const k = levels.indexOf(r.classification);
    return { ...r, classification: levels[k >= 0 ? (k + 1) % 5 : 2] };
  });
  writeFileSync(join(dir, 'model_b.json'), JSON.stringify(predB));

  const page = await browser.newPage();
  await page.goto(server.url);
  await page.setInputFiles('input[type=file]', [join(dir, 'gold.json'), join(dir, 'model_a.json')]);
  await page.locator('section.card[data-model="model 1"] [data-metric="acc_a"]').first().waitFor();
  await page.setInputFiles('input[type=file]', [join(dir, 'model_b.json')]);
  await page.locator('section.card[data-model="model 2"] [data-metric="acc_a"]').first().waitFor();

  await page.click('button[data-tab="compare"]');
  assert.match(page.url(), /tab=compare/, 'the tab is in the URL');
  // Each model's overall metrics equal the CLI's.
  for (const [model, file] of [['model 1', 'model_a.json'], ['model 2', 'model_b.json']]) {
    const cli = JSON.parse(execFileSync(scorebench, ['score', 'eotgc', '--gold', 'gold.json', file, '--json'], { cwd: dir, encoding: 'utf8' }));
    const value = await page.locator(`.compare td[data-metric="acc_a"][data-model^="${model}"]`).getAttribute('data-value');
    assert.equal(JSON.parse(value), cli.overall.metrics.acc_a, `${model} acc_a equals the CLI`);
  }
  await page.click('[data-testid="run-bootstrap"]');
  const intervals = page.locator('[data-testid="intervals"]');
  await intervals.waitFor({ timeout: 60_000 });
  const cells = await page.$$eval('[data-testid="intervals"] td[data-metric]', (tds) => tds.map((td) => ({
    metric: td.dataset.metric, diff: JSON.parse(td.dataset.value), low: JSON.parse(td.dataset.low), high: JSON.parse(td.dataset.high),
  })));
  assert.deepEqual(cells.map((c) => c.metric).sort(), ['acc_a', 'pearson', 'score']);
  for (const c of cells) {
    assert.equal(typeof c.low, 'number', `${c.metric} has an interval`);
    assert.ok(c.low <= c.diff && c.diff <= c.high, `${c.metric}: ${c.low} ≤ ${c.diff} ≤ ${c.high}`);
    assert.ok(c.high - c.low > 0, `${c.metric}: the interval has width`);
  }
  assert.match(await intervals.locator('caption').innerText(), /1000 resamples/);
  await page.screenshot({ path: join(artifacts, 'compare-eotgc.png'), fullPage: true });
  await page.close();
});
