// Drives the `wyrd monitor` page in Debian's headless Chromium, as a
// designer would: picks an agent, checks its running path is highlighted
// in the graph, pauses (the tick counter stops), steps, resumes, and sets a
// world counter. Prints one JSON line of what it saw; exits 1 with the
// reason when something is not as it should be.
//
//   node tests/browser/monitor.mjs URL SCREENSHOT.png COUNTER VALUE
//
// tests/games/monitor.rs runs it against a headless squad_ai; the
// screenshot is the README's picture of the monitor.
import { chromium } from "playwright-core";

const [url, shot, counter, value] = process.argv.slice(2);
if (!url || !shot || !counter || !value) {
  console.error("usage: node monitor.mjs URL SCREENSHOT.png COUNTER VALUE");
  process.exit(2);
}

function fail(why) {
  throw new Error(why);
}

/** Polls `probe` until it returns something truthy (up to `ms`). */
async function until(what, probe, ms = 15000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) fail(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  // This machine's network is closed: without these Chromium keeps trying
  // to reach Google's services.
  args: [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
  ],
});
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 860 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);

  // The agent list fills; pick the third agent (not the one the page
  // picks by itself).
  await page.waitForSelector("#agents li[data-entity]");
  await until("eight agents listed", async () => (await page.locator("#agents li[data-entity]").count()) >= 8);
  const agent = page.locator("#agents li[data-entity]").nth(2);
  const entity = Number(await agent.getAttribute("data-entity"));
  await agent.click();
  await until("the agent selected", async () =>
    (await page.locator("#agents li.selected").getAttribute("data-entity")) === String(entity));

  // Its tree is drawn with the running path highlighted: a running leaf,
  // and every node above it running.
  const highlighted = await until("a running path in the graph", async () => {
    const paths = await page.locator("#graph g.node.running").evaluateAll((gs) => gs.map((g) => g.dataset.path));
    return paths.length > 1 ? paths : null;
  });
  for (const p of highlighted) {
    const parent = p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : null;
    if (parent && !highlighted.includes(parent)) fail(`${p} is highlighted but its parent ${parent} is not`);
  }
  if (!highlighted.includes("root")) fail(`the root is not on the highlighted path: ${highlighted}`);

  // Pause: the tick counter stops.
  await page.click("#pause");
  await until("the page says paused", async () => (await page.textContent("#paused")) === "paused");
  await page.waitForTimeout(400);
  const pausedAt = Number(await page.textContent("#tick"));
  await page.waitForTimeout(1500);
  const later = Number(await page.textContent("#tick"));
  if (later !== pausedAt) fail(`paused at tick ${pausedAt}, but the counter went on to ${later}`);

  // While paused the picture is still: the highlighted leaves are the
  // agent's running leaves as the game lists them.
  const leaves = await page.locator("#graph g.node.running").evaluateAll((gs) => {
    const paths = gs.map((g) => g.dataset.path);
    return paths.filter((p) => !paths.some((q) => q.startsWith(p + "/")));
  });
  const listed = await page.evaluate(async (entity) => {
    const answer = await fetch("/brp", {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "wyrd.agents", params: {} }),
    });
    return (await answer.json()).result.agents.find((a) => a.entity === entity).running;
  }, entity);
  for (const l of leaves) {
    if (!listed.includes(l)) fail(`highlighted leaf ${l} is not running in the game (${listed})`);
  }

  // A node clicked shows its details.
  await page.locator(`#graph g.node[data-path="${leaves[0]}"]`).click();
  await until("the node's details", async () => (await page.textContent("#node-info")).startsWith(leaves[0]));

  // Step: one tick; resume: it goes on.
  await page.click("#step");
  await until("one step", async () => Number(await page.textContent("#tick")) === pausedAt + 1);
  await page.click("#resume");
  await until("ticking again", async () => Number(await page.textContent("#tick")) > pausedAt + 3);

  // Set a world counter from the page.
  const input = page.locator(`#world tr[data-name="${counter}"] input`);
  await input.waitFor();
  await input.fill(value);
  await page.locator(`#world tr[data-name="${counter}"] button.set`).click();
  await until("the page confirms the set", async () => (await page.textContent("#status")).includes(`${counter} set to ${value}`));
  await until("the world table shows it", async () =>
    Number(await page.locator(`#world tr[data-name="${counter}"] input`).inputValue()) >= Number(value));

  // The picture: the agent, its tree with the crowd counts, the world.
  await until("crowd counts on the graph", async () => (await page.locator("#graph .crowd").count()) > 0);
  // "fit" (on by default) shows the whole tree: every node inside the box.
  const outside = await page.evaluate(() => {
    const box = document.getElementById("graph-box").getBoundingClientRect();
    return [...document.querySelectorAll("#graph g.node")].filter((g) => {
      const r = g.getBoundingClientRect();
      return r.top < box.top - 1 || r.bottom > box.bottom + 1 || r.left < box.left - 1 || r.right > box.right + 1;
    }).map((g) => g.dataset.path);
  });
  if (outside.length) fail(`with "fit" on, nodes outside the graph box: ${outside.join(", ")}`);
  // Paused for the picture, so the list (1 Hz) and the tree (5 Hz) show the
  // same moment.
  await page.click("#pause");
  await until("paused", async () => (await page.textContent("#paused")) === "paused");
  await page.waitForTimeout(1300);
  await page.screenshot({ path: shot });
  await page.click("#resume");
  if (errors.length) fail(`the page threw: ${errors.join("; ")}`);
  console.log(JSON.stringify({ entity, highlighted, leaves, listed, pausedAt }));
} catch (e) {
  console.error(`monitor page: ${e.message}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
