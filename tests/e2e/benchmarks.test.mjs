// Golden benchmark files dropped into the page: every value in the table equals the CLI's JSON
// (read through the data-* attributes), and each export equals the CLI's export of the same files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, launchBrowser, tempDir, pageMetrics, artifacts, root, scorebench } from './support.mjs';

const golden = join(root, 'tests', 'golden');
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

/** Runs the CLI in `dir` with bare file names, so `inputs[].path` matches the page's names. */
function cli(dir, args, format = 'json') {
  const out = execFileSync(scorebench, ['score', ...args, '--format', format], { cwd: dir, encoding: 'utf8' });
  return format === 'json' ? JSON.parse(out) : out;
}

/** Every scalar of a report as { "subset/metric": value } (overall included). */
function reportMetrics(report) {
  const out = {};
  const add = (subset, metrics) => {
    for (const [k, v] of Object.entries(metrics)) if (!Array.isArray(v)) out[`${subset}/${k}`] = v;
  };
  add('overall', report.overall.metrics);
  for (const s of report.subsets) add(s.name, s.metrics);
  return out;
}

async function dropAndRead(files, benchmark, screenshot) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(server.url);
  await page.setInputFiles('input[type=file]', files);
  const card = `section.card[data-benchmark="${benchmark}"]`;
  await page.locator(`${card} [data-metric]`).first().waitFor({ timeout: 60_000 });
  // The worker hashes dropped files after their numbers; the JSON export names the hashes.
  await page.locator(`${card}[data-hashed="true"]`).waitFor({ timeout: 60_000 });
  await page.screenshot({ path: join(artifacts, screenshot), fullPage: true });
  const metrics = await pageMetrics(page, card);
  const exports = await page.$$eval(`${card} button[data-export]`, (bs) =>
    Object.fromEntries(bs.map((b) => [b.dataset.export, b.dataset.content])));
  await page.close();
  assert.deepEqual(errors, [], 'no page errors');
  return { metrics, exports };
}

function assertPageMatchesCli(pageMetricsMap, report, keys) {
  const expected = reportMetrics(report);
  let compared = 0;
  for (const [cell, value] of Object.entries(pageMetricsMap)) {
    const metric = cell.split('/').pop();
    if (!keys.includes(metric)) continue;
    assert.ok(cell in expected, `${cell} is in the CLI report`);
    assert.equal(value, expected[cell], `${cell}: page ${value} vs CLI ${expected[cell]}`);
    compared += 1;
  }
  return compared;
}

function assertExportsMatchCli(exports, dir, args) {
  const cliJson = execFileSync(scorebench, ['score', ...args, '--json'], { cwd: dir, encoding: 'utf8' });
  assert.equal(exports.json.trim(), cliJson.trim(), 'JSON export equals `scorebench score … --json`');
  assert.equal(exports.csv, cli(dir, args, 'csv'), 'CSV export equals the CLI');
  assert.equal(exports.md, cli(dir, args, 'markdown'), 'Markdown export equals the CLI');
  assert.equal(exports.tex, cli(dir, args, 'latex'), 'LaTeX export equals the CLI');
}

test('SAS-Bench case_24: 12 prediction files + taxonomy, every table value equals the CLI', async () => {
  const dir = tempDir('sas24');
  const src = join(golden, 'sasbench', 'case_24');
  const preds = readdirSync(join(src, 'datasets_GoldenModel_Scored')).filter((f) => f.endsWith('_prediction.jsonl'));
  assert.equal(preds.length, 12);
  for (const f of preds) copyFileSync(join(src, 'datasets_GoldenModel_Scored', f), join(dir, f));
  copyFileSync(join(src, 'datasets', 'error_type.jsonl'), join(dir, 'error_type.jsonl'));
  const args = ['sasbench', '--taxonomy', 'error_type.jsonl', ...preds];

  const { metrics, exports } = await dropAndRead([...preds, 'error_type.jsonl'].map((f) => join(dir, f)), 'sasbench', 'sasbench-case24.png');
  const report = cli(dir, args);
  const compared = assertPageMatchesCli(metrics, report, ['qwk', 'ccs', 'ecs']);
  assert.equal(compared, 13 * 3, '12 files + Avg. for qwk, ccs, ecs');
  assertExportsMatchCli(exports, dir, args);
});

test('EOTGC full-size case: ACC_A, Pearson, Score per grade equal the CLI', async () => {
  const dir = tempDir('eotgc');
  const src = join(golden, 'eotgc', 'eotgc_11_full_size_185');
  for (const f of ['gold.json', 'pred.json']) copyFileSync(join(src, f), join(dir, f));
  const args = ['eotgc', '--gold', 'gold.json', 'pred.json'];
  const { metrics, exports } = await dropAndRead([join(dir, 'gold.json'), join(dir, 'pred.json')], 'eotgc', 'eotgc-185.png');
  const report = cli(dir, args);
  const compared = assertPageMatchesCli(metrics, report, ['acc_a', 'pearson', 'score']);
  assert.ok(compared >= 3 * 8, `overall + 7 grades compared (${compared})`);
  assertExportsMatchCli(exports, dir, args);
});

test('MSQA n=3 case: accuracy, coverage and tokens equal the CLI', async () => {
  const dir = tempDir('msqa');
  const expected = JSON.parse(readFileSync(join(golden, 'msqa', 'msqa_07_sampling_n3', 'expected.json'), 'utf8'));
  writeFileSync(join(dir, 'evaluation.json'), JSON.stringify(expected.evaluation_json, null, 4));
  const args = ['msqa', 'evaluation.json'];
  const { metrics, exports } = await dropAndRead([join(dir, 'evaluation.json')], 'msqa', 'msqa-n3.png');
  const report = cli(dir, args);
  assert.equal(report.overall.metrics.accuracy, expected.score_json.evaluation.overall_score);
  const compared = assertPageMatchesCli(metrics, report, ['accuracy', 'answer_coverage', 'average_completion_tokens']);
  assert.ok(compared >= 3, `compared ${compared}`);
  assertExportsMatchCli(exports, dir, args);
});

test('ASAP-AES golden cases: QWK per set and both means equal the CLI (gold TSV in Latin-1)', async () => {
  for (const name of ['asap_01_basic', 'asap_02_float_predictions', 'asap_03_all_sets']) {
    const dir = tempDir('asap');
    const src = join(golden, 'asap_aes', name);
    for (const f of ['training_set_rel3.tsv', 'predictions.csv']) copyFileSync(join(src, f), join(dir, f));
    const args = ['asap-aes', '--gold', 'training_set_rel3.tsv', 'predictions.csv'];
    const { metrics, exports } = await dropAndRead(
      [join(dir, 'training_set_rel3.tsv'), join(dir, 'predictions.csv')], 'asap-aes', `asap-${name}.png`);
    const report = cli(dir, args);
    const expected = JSON.parse(readFileSync(join(src, 'expected.json'), 'utf8'));
    const compared = assertPageMatchesCli(metrics, report, ['qwk', 'mean_qwk_fisher', 'mean_qwk']);
    assert.equal(compared, Object.keys(expected.sets).length + 2, `${name}: every set and both means`);
    assert.ok(Math.abs(metrics['overall/mean_qwk_fisher'] - expected.mean_qwk_fisher) <= 1e-12, name);
    assertExportsMatchCli(exports, dir, args);
  }
});

test('exports keep user text inert: HTML and a newline in a grade do not reach the Markdown table', async () => {
  const dir = tempDir('inert-exports');
  const src = join(golden, 'eotgc', 'eotgc_11_full_size_185');
  const formula = '=HYPERLINK("http://example.org","x")';
  const html = '<img src=x onerror=alert(1)>\nnext';
  const gold = JSON.parse(readFileSync(join(src, 'gold.json'), 'utf8'))
    .map((r, i) => ({ ...r, grade: i % 3 === 0 ? formula : i % 3 === 1 ? html : r.grade }));
  writeFileSync(join(dir, 'gold.json'), JSON.stringify(gold));
  copyFileSync(join(src, 'pred.json'), join(dir, 'pred.json'));
  const args = ['eotgc', '--gold', 'gold.json', 'pred.json'];
  const { exports } = await dropAndRead([join(dir, 'gold.json'), join(dir, 'pred.json')], 'eotgc', 'eotgc-inert-exports.png');
  assertExportsMatchCli(exports, dir, args);
  // EOTGC names its rows "grade …", so no cell starts a formula (the server's board export test
  // and workbench's unit tests cover labels that do).
  assert.ok(exports.csv.includes('grade =HYPERLINK(""http://example.org"",""x"")'), exports.csv);
  assert.ok(!exports.md.includes('<img'), 'no raw HTML in Markdown');
  assert.ok(exports.md.includes('&lt;img src=x onerror=alert(1)&gt; next'), exports.md);
  const tableLines = exports.md.trim().split('\n');
  assert.ok(tableLines.every((l) => l.startsWith('|') && l.endsWith('|')), 'every Markdown line is a table row');
});
