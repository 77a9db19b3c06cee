// Plays the person at the PDS's OAuth authorization page, in Debian's chromium, headless,
// driven by puppeteer-core (pinned in package.json), for tests/cmd/oauth.sh.
//
// Usage: node oauth-browser.js <install dir> <authorization URL>
// Environment: SS_OAUTH_PASSWORD_FILE (a file holding the account's password: never argv),
// SS_OAUTH_ACTION (approve, the default, or deny), SS_CHROMIUM (default /usr/bin/chromium),
// SS_OAUTH_LOG (a file to append what happened to), SS_OAUTH_PASTE_FILE (the browser is on
// another machine: the redirect to 127.0.0.1 is not followed, its URL is written to this
// file for the person to paste).
// Types the password on the PDS's sign-in page, then approves (or denies) on its consent page;
// the page then redirects to skillsync's loopback listener, which is the test's outcome.
'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { createRequire } = require('node:module')

function log(msg) {
  if (process.env.SS_OAUTH_LOG) fs.appendFileSync(process.env.SS_OAUTH_LOG, `${msg}\n`)
}

// Clicks the first button whose text matches re; false when there is none.
async function clickButton(page, re) {
  const buttons = await page.$$('button')
  for (const b of buttons) {
    const text = await b.evaluate((el) => el.innerText || el.textContent || '')
    if (re.test(text.trim())) {
      await b.click()
      return true
    }
  }
  return false
}

async function buttonTexts(page) {
  return page.$$eval('button', (bs) => bs.map((b) => (b.innerText || '').trim()).join(' | '))
}

// Waits for a button whose text matches re, and clicks it when click.
async function waitButton(page, re, ms, click) {
  const end = Date.now() + ms
  while (Date.now() < end) {
    const texts = (await buttonTexts(page)).split(' | ')
    if (texts.some((t) => re.test(t))) return click ? clickButton(page, re) : true
    await new Promise((r) => setTimeout(r, 250))
  }
  return false
}

async function main() {
  const [installDir, url] = process.argv.slice(2)
  const password = fs.readFileSync(process.env.SS_OAUTH_PASSWORD_FILE, 'utf8').trim()
  const action = process.env.SS_OAUTH_ACTION || 'approve'
  const req = createRequire(path.join(installDir, 'package.json'))
  const puppeteer = req('puppeteer-core')
  const browser = await puppeteer.launch({
    executablePath: process.env.SS_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  })
  try {
    const page = await browser.newPage()
    const paste = process.env.SS_OAUTH_PASTE_FILE
    if (paste) {
      await page.setRequestInterception(true)
      page.on('request', (r) => {
        if (!r.url().startsWith('http://127.0.0.1:')) return r.continue()
        fs.writeFileSync(paste, `${r.url()}\n`, { mode: 0o600 })
        log('redirect kept for pasting')
        return r.abort()
      })
    }
    await page.goto(url, { waitUntil: 'networkidle0' })
    const field = await page.waitForSelector('input[type=password]', { timeout: 20000 })
    await field.type(password)
    await page.keyboard.press('Enter')
    log('password typed')
    // The consent page is there once its approve button is (the sign-in form has a Cancel of
    // its own, which is not the refusal).
    const approve = /^(accept|authorize|allow|approve)/i
    if (!(await waitButton(page, approve, 20000, action !== 'deny')))
      throw new Error('no consent page')
    log(`buttons: ${await buttonTexts(page)}`)
    const re = action === 'deny' ? /^(deny|decline|reject|cancel)/i : approve
    if (action === 'deny' && !(await clickButton(page, re))) throw new Error('no deny button')
    log(`${action} clicked`)
    await page
      .waitForNavigation({ timeout: 20000, waitUntil: 'load' })
      .catch(() => {})
    log(`ended on ${page.url().split('?')[0]}`)
  } finally {
    await browser.close()
  }
}

main().catch((err) => {
  log(`failed: ${err && err.stack ? err.stack : err}`)
  process.exit(1)
})
