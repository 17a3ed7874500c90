// Playwright's side of bench/pages_bench: launches Debian's Chromium through playwright-core,
// opens the benchmark's pages in it and times page.evaluate, the baseline an agent would use
// without editgate. Commands come on stdin and answers go to stdout, one JSON object per line:
//   {"cmd":"open","url":U,"count":K}            -> {"opened":total}     K new tabs on U
//   {"cmd":"evaluate","url":U,"samples":N,"warmup":W,"code":C} -> {"samples":[ms,...]}
// The browser closes when stdin does.
'use strict';

const { chromium } = require('playwright-core');
const readline = require('readline');

// The flags the tests use for Debian's Chromium as root, minus what Playwright sets itself.
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function answer(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

async function main() {
  const executablePath = process.argv[2];
  const browser = await chromium.launch({ executablePath, args: FLAGS });
  const context = await browser.newContext();
  const tabs = [];
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    const cmd = JSON.parse(line);
    if (cmd.cmd === 'open') {
      for (let i = 0; i < cmd.count; i++) {
        const tab = await context.newPage();
        await tab.goto(cmd.url);
        tabs.push(tab);
      }
      answer({ opened: tabs.length });
    } else if (cmd.cmd === 'evaluate') {
      const tab = await context.newPage();
      await tab.goto(cmd.url);
      for (let i = 0; i < cmd.warmup; i++) await tab.evaluate(cmd.code);
      const samples = [];
      for (let i = 0; i < cmd.samples; i++) {
        const t0 = performance.now();
        const value = await tab.evaluate(cmd.code);
        samples.push(performance.now() - t0);
        if (value !== 2) throw new Error('page.evaluate returned ' + JSON.stringify(value));
      }
      await tab.close();
      answer({ samples });
    } else {
      throw new Error('unknown command ' + line);
    }
  }
  await browser.close();
}

main().catch((e) => {
  process.stderr.write((e && e.stack) || String(e));
  process.stderr.write('\n');
  process.exit(1);
});
