// Debian's firefox-esr over WebDriver BiDi, for tests/site/test_firefox.py: one browser,
// with the strict file-origin rule on as readers have it (puppeteer's profile turns it
// off), driven by one JSON array a line on stdin ([op, ...args]), answered by one JSON
// object a line on stdout ({value} or {error}).
// node bridge.mjs NODE_MODULES_PARENT FIREFOX
import { createRequire } from "node:module";
import readline from "node:readline";

const puppeteer = createRequire(`${process.argv[2]}/`)("puppeteer-core");
const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath: process.argv[3],
  headless: true,
  protocol: "webDriverBiDi",
  extraPrefsFirefox: { "security.fileuri.strict_origin_policy": true },
});
const problems = [];
let page = null;
const ops = {
  async open(url) {
    await page?.close();
    page = await browser.newPage();
    page.setDefaultTimeout(300_000); // loading Python, then running, on a busy machine
    page.on("pageerror", (error) => problems.push(String(error)));
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    await page.goto(url, { waitUntil: "load" });
  },
  goto: (url) => page.goto(url, { waitUntil: "load" }),
  evaluate: (expression) => page.evaluate(expression),
  wait: (expression) => page.waitForFunction(expression).then((handle) => handle.dispose()),
  click: (selector) => page.locator(selector).click(),
  fill: (selector, value) => page.locator(selector).fill(value),
  select: (selector, value) => page.select(selector, value),
  problems: () => problems.splice(0),
};
for await (const line of readline.createInterface({ input: process.stdin })) {
  const [op, ...args] = JSON.parse(line);
  try {
    const value = await ops[op](...args);
    process.stdout.write(`${JSON.stringify({ value: ["evaluate", "problems"].includes(op) ? value : null })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ error: String(error?.stack ?? error) })}\n`);
  }
}
await browser.close();
