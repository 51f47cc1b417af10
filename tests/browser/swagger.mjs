// swagger.mjs drives flexd's Swagger UI in Chromium as a person would: for
// POST /v1/solve and POST /v1/clusters/{cluster}/epochs it opens the
// operation, clicks "Try it out", keeps the example body the UI offers,
// clicks "Execute", and checks that the rendered answer is a 200. It
// saves a screenshot of each answer as rendered. With TOKEN, it first
// pastes the token, exactly as `flexd token create` printed it, into the
// Authorize dialog, as an operator would: the server then refuses
// requests without it, so the 200s show the pasted token works.
//
// Usage: node swagger.mjs BASE_URL SCREENSHOT_DIR [TOKEN]
import { chromium } from "playwright-core";

const [base, shots, token] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
let failed = 0;
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
  await page.goto(`${base}/swagger/`);
  if (token) {
    await page.locator(".auth-wrapper .btn.authorize").first().click();
    const dialog = page.locator(".modal-ux");
    await dialog.locator('input[aria-label="auth-bearer-value"]').fill(token);
    await dialog.locator("button.modal-btn.auth.authorize").click();
    await dialog.locator("button.modal-btn.auth.btn-done").click();
    console.log("authorized with the token as printed");
  }
  for (const { id, cluster, shot } of [
    { id: "operations-solve-solve", shot: "swagger-solve.png" },
    { id: "operations-epochs-decideEpoch", cluster: "swagger-demo", shot: "swagger-epoch.png" },
  ]) {
    const op = page.locator(`#${id}`);
    await op.locator(".opblock-summary").first().click();
    await op.locator(".try-out__btn").click();
    if (cluster) {
      await op.locator('tr[data-param-name="cluster"] input').fill(cluster);
    }
    await op.locator("button.execute").click();
    const status = op.locator(".live-responses-table .response .response-col_status").first();
    await status.waitFor({ timeout: 15000 });
    const code = (await status.innerText()).trim();
    // What a person sees after Execute: the server's answer, status first.
    await op.locator(".live-responses-table").first().screenshot({ path: `${shots}/${shot}` });
    console.log(`${id}: ${code}`);
    if (!code.startsWith("200")) {
      failed++;
    }
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
