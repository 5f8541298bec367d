// speedscope_load.mjs - load timelines into speedscope in headless Chromium
// as speedscope's own command line does (its page, the file handed over by
// a script calling speedscope.loadFileFromBase64), then export what it
// imported in its own file format, as its Ctrl+S does.
//
// usage: node speedscope_load.mjs CHROMIUM OUT_DIR FILE...
// For each FILE, OUT_DIR/<n>.json holds {file, warnings, errors, exported}:
// every console warning and error of the import, and the exported profile.
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import puppeteer from 'puppeteer-core'

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
const page_html = path.join(path.dirname(require.resolve('speedscope/package.json')),
  'dist', 'release', 'index.html')

async function load(browser, file, out_dir, n) {
  const page = await browser.newPage()
  const warnings = [], errors = []
  // the import's own messages, not the GL driver's about drawing
  page.on('console', msg => {
    if (!/speedscope/.test(msg.location().url || '') ||
        /^\[\.WebGL-/.test(msg.text()))
      return
    if (msg.type() === 'warn' || msg.type() === 'warning')
      warnings.push(msg.text())
    else if (msg.type() === 'error')
      errors.push(msg.text())
  })
  page.on('pageerror', err => errors.push(String(err)))
  page.on('dialog', async dialog => {
    errors.push('dialog: ' + dialog.message())
    await dialog.dismiss()
  })
  // keep what the export hands to a download link, and download nothing
  await page.evaluateOnNewDocument(() => {
    const create = URL.createObjectURL.bind(URL)
    URL.createObjectURL = blob => { window.__exported = blob; return create(blob) }
    HTMLAnchorElement.prototype.click = function () {}
  })
  const script = path.join(out_dir, `${n}.load.js`)
  const data = fs.readFileSync(file).toString('base64')
  fs.writeFileSync(script, `speedscope.loadFileFromBase64(${JSON.stringify(
    path.basename(file))}, ${JSON.stringify(data)})`)
  await page.goto(`file://${page_html}#localProfilePath=${script}`)
  let exported = null
  try {
    await page.waitForFunction(() => / - speedscope$/.test(document.title),
      { timeout: 60000 })
    await page.keyboard.down('Control')
    await page.keyboard.press('s')
    await page.keyboard.up('Control')
    await page.waitForFunction(() => window.__exported, { timeout: 60000 })
    exported = JSON.parse(await page.evaluate(() => window.__exported.text()))
  } catch (err) {
    errors.push(`no profile loaded: ${err.message}`)
  }
  fs.writeFileSync(path.join(out_dir, `${n}.json`),
    JSON.stringify({ file, warnings, errors, exported }))
  await page.close()
}

const [chromium, out_dir, ...files] = process.argv.slice(2)
const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  // software WebGL (no GPU here), which Chromium wants asked for
  args: ['--no-sandbox', '--allow-file-access-from-files', '--disable-gpu',
    '--enable-unsafe-swiftshader'],
})
try {
  let n = 0
  for (const file of files)
    await load(browser, file, out_dir, n++)
} finally {
  await browser.close()
}
