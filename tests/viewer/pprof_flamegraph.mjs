// pprof_flamegraph.mjs - open the flame graph of `go tool pprof -http` in
// headless Chromium as a user opens it (the page, its scripts drawing the
// graph), then report what the drawn graph shows.
//
// usage: node pprof_flamegraph.mjs CHROMIUM URL USER_DATA_DIR
// Prints one JSON object: {titles, labels, errors}: each drawn frame's
// tooltip title and its visible label text, and every console error, page
// error and answer of 400 or more ("STATUS URL").
import puppeteer from 'puppeteer-core'

const [chromium, url, user_data_dir] = process.argv.slice(2)
const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  userDataDir: user_data_dir,
  args: ['--headless', '--no-sandbox', '--disable-gpu',
    '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run'],
})
const errors = []
let shown = { titles: [], labels: [] }
try {
  const page = await browser.newPage()
  // a failed load is said with its URL below, not by the console's line
  page.on('console', msg => {
    if (msg.type() === 'error' && !/^Failed to load resource/.test(msg.text()))
      errors.push(msg.text())
  })
  page.on('pageerror', err => errors.push(String(err)))
  page.on('response', res => {
    if (res.status() >= 400)
      errors.push(`${res.status()} ${res.url()}`)
  })
  await page.setViewport({ width: 1600, height: 1000 })
  await page.goto(url, { waitUntil: 'load', timeout: 60000 })
  // the graph is drawn by the page's scripts once loaded: wait for frames
  await page.waitForFunction(
    () => document.querySelectorAll('#chart svg g title').length > 0,
    { timeout: 60000 })
  // labels are written as the drawing's transition ends
  const labels = '#chart svg g .d3-flame-graph-label'
  await page.waitForFunction(sel => [...document.querySelectorAll(sel)]
    .some(d => d.textContent), { timeout: 60000 }, labels)
  shown = await page.evaluate(sel => ({
    titles: [...document.querySelectorAll('#chart svg g title')]
      .map(t => t.textContent),
    labels: [...document.querySelectorAll(sel)]
      .map(d => d.textContent).filter(s => s),
  }), labels)
} catch (err) {
  errors.push(`no flame graph drawn: ${err.message}`)
} finally {
  await browser.close()
}
process.stdout.write(JSON.stringify({ ...shown, errors }))
