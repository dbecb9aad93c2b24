// Logs of other tools (tests/imports/, made by the tools themselves) dropped on the page: each
// run is recognised, every table value equals `scorebench score <tool> … --json`, and two runs
// dropped one after the other compare with a paired bootstrap interval per metric.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, launchBrowser, pageMetrics, artifacts, root, scorebench } from './support.mjs';

const imports = join(root, 'tests', 'imports');
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

const list = (dir, keep) => readdirSync(dir).filter(keep).sort().map((f) => join(dir, f));

const tools = [
  {
    key: 'lm-eval',
    metrics: ['acc,none', 'acc_norm,none'],
    runs: ['dummy-a', 'dummy-b'].map((run) =>
      list(join(imports, 'lm-eval', run), (f) => f.startsWith('results_') || f.startsWith('samples_'))),
  },
  {
    key: 'inspect',
    metrics: ['match', 'includes'],
    runs: [[join(imports, 'inspect', 'model-a.eval')], [join(imports, 'inspect', 'model-b.eval')]],
  },
  {
    key: 'evalscope',
    metrics: ['accuracy'],
    runs: ['model-a', 'model-b'].map((m) => [
      join(imports, 'evalscope', m, 'reports', m, 'general_mcq.json'),
      ...list(join(imports, 'evalscope', m, 'reviews', m), (f) => f.endsWith('.jsonl')),
    ]),
  },
];

for (const tool of tools) {
  test(`${tool.key}: two runs dropped, the CLI's numbers, paired intervals`, async () => {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(server.url);
    for (const [i, files] of tool.runs.entries()) {
      await page.setInputFiles('input[type=file]', files);
      const card = `section.card[data-benchmark="${tool.key}"][data-model="model ${i + 1}"]`;
      await page.locator(`${card} [data-metric]`).first().waitFor({ timeout: 60_000 });
      const cli = JSON.parse(execFileSync(scorebench, ['score', tool.key, ...files, '--json'], { encoding: 'utf8' }));
      const expected = { };
      for (const [k, v] of Object.entries(cli.overall.metrics)) expected[`overall/${k}`] = v;
      for (const s of cli.subsets) for (const [k, v] of Object.entries(s.metrics)) expected[`${s.name}/${k}`] = v;
      const shown = await pageMetrics(page, card);
      let compared = 0;
      for (const [cell, value] of Object.entries(shown)) {
        if (!(cell in expected)) {
          // A metric this subset does not have (e.g. `stderr` of another scorer): an empty cell.
          assert.equal(value, null, `${cell} is not in the CLI report, so the page shows none`);
          continue;
        }
        assert.equal(value, expected[cell], `${tool.key} ${cell}: page ${value} vs CLI ${expected[cell]}`);
        compared += 1;
      }
      assert.ok(compared >= 3, `${tool.key}: ${compared} cells compared`);
    }
    await page.click('button[data-tab="compare"]');
    await page.click('[data-testid="run-bootstrap"]');
    await page.locator('[data-testid="intervals"]').waitFor({ timeout: 60_000 });
    const cells = await page.$$eval('[data-testid="intervals"] td[data-metric]', (tds) => tds.map((td) => ({
      metric: td.dataset.metric, diff: JSON.parse(td.dataset.value), low: JSON.parse(td.dataset.low), high: JSON.parse(td.dataset.high),
    })));
    for (const metric of tool.metrics) {
      const c = cells.find((x) => x.metric === metric);
      assert.ok(c, `an interval for ${metric}: ${JSON.stringify(cells)}`);
      assert.equal(typeof c.low, 'number', `${metric} has an interval`);
      assert.ok(c.low <= c.diff && c.diff <= c.high && c.low < c.high, `${metric}: ${c.low} ≤ ${c.diff} ≤ ${c.high}`);
    }
    await page.screenshot({ path: join(artifacts, `compare-${tool.key}.png`), fullPage: true });
    await page.close();
    assert.deepEqual(errors, [], 'no page errors');
  });
}

// An Inspect .eval is read in part (issue 29): the page reads the archive's directory, then
// header, reductions and summaries only. What needs more reads more: the sample's own entry
// for its detail, the whole file for its hash (streamed) and for a share.
test('inspect: a .eval read in part hashes the whole file, shows a sample\'s reply, shares the whole file', async () => {
  const file = join(imports, 'inspect', 'model-a.eval');
  const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
  const cli = JSON.parse(execFileSync(scorebench, ['score', 'inspect', file, '--json'], { encoding: 'utf8' }));
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(server.url);
  await page.setInputFiles('input[type=file]', [file]);
  const card = page.locator('section.card[data-benchmark="inspect"][data-hashed="true"]');
  await card.waitFor({ timeout: 60_000 });
  assert.equal(await card.getAttribute('data-sha256'), sha, 'the hash of the whole file');
  const phases = JSON.parse((await page.locator('.timing').getAttribute('data-phases')) || '[]');
  assert.ok(phases.some(([step]) => step === 'read in part'), `read in part: ${JSON.stringify(phases)}`);
  const shown = await pageMetrics(page, 'section.card[data-benchmark="inspect"]');
  assert.equal(shown['overall/accuracy'], cli.overall.metrics.accuracy);
  const reply = async (p) => {
    await p.click('button[data-tab="samples"]');
    await p.locator('.vrow[data-sample="0"]').click();
    const detail = p.locator('[data-testid="sample-detail"]');
    await detail.waitFor({ timeout: 60_000 });
    await detail.getByText('It is 5, or rather 6').first().waitFor({ timeout: 60_000 });
  };
  await reply(page);
  // A share carries the file itself: the recipient reads the same reply from it.
  await page.click('header button[data-action=share]');
  await page.click('[data-testid=share-dialog] button[data-action=share-create]');
  await page.locator('[data-testid=share-made]').waitFor({ timeout: 60_000 });
  const link = await page.locator('[data-testid=share-link]').inputValue();
  const other = await launchBrowser();
  try {
    const opened = await other.newPage();
    await opened.goto(link);
    // The share reopens the view as it was (the samples tab): the table tab has the card.
    await opened.locator('button[data-tab="table"]').click({ timeout: 60_000 });
    const received = opened.locator('section.card[data-benchmark="inspect"][data-hashed="true"]');
    await received.waitFor({ timeout: 60_000 });
    assert.equal(await received.getAttribute('data-sha256'), sha, 'the share holds the whole file');
    await reply(opened);
  } finally {
    await other.close();
  }
  await page.close();
  assert.deepEqual(errors, [], 'no page errors');
});

// A role whose benchmark reads files whole makes the page read the .eval whole (not "its bytes
// were not read yet"); back to Inspect, the whole file scores as the part did.
test('inspect: a .eval read in part, given another role and back, is read whole and scores the same', async () => {
  const file = join(imports, 'inspect', 'model-a.eval');
  const cli = JSON.parse(execFileSync(scorebench, ['score', 'inspect', file, '--json'], { encoding: 'utf8' }));
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(server.url + '?lang=en');
  await page.setInputFiles('input[type=file]', [file]);
  const card = page.locator('section.card[data-benchmark="inspect"][data-hashed="true"]');
  await card.waitFor({ timeout: 60_000 });
  const role = page.locator('tr[data-file="model-a.eval"] select[aria-label="role"]');
  const inspectRole = await role.inputValue();
  await role.selectOption('pairs');
  const pairs = page.locator('section.card[data-benchmark="pairs"]');
  await pairs.waitFor({ timeout: 60_000 });
  const said = await pairs.innerText();
  assert.ok(!/not read yet/.test(said), `the pairs card reads the file, not a part: ${said}`);
  assert.match(said, /model-a\.eval/, `its error names the file: ${said}`);
  await role.selectOption(inspectRole);
  await card.waitFor({ timeout: 60_000 });
  const shown = await pageMetrics(page, 'section.card[data-benchmark="inspect"]');
  assert.equal(shown['overall/accuracy'], cli.overall.metrics.accuracy);
  await page.close();
  assert.deepEqual(errors, [], 'no page errors');
});
