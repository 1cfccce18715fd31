import { HttpLayerRouter, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

const page = (basePath: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc demo</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 42rem; margin: 3rem auto; padding: 0 1rem; color: #1f2328 }
  code { background: #f4f4f5; padding: .1em .3em; border-radius: 4px }
  pre { background: #f4f4f5; padding: 1rem; border-radius: 8px; overflow: auto }
</style>
<script>window.svcConfig = { country: new URLSearchParams(location.search).get("country") || undefined }</script>
<script src="${basePath}/svc.js" async></script>
</head>
<body>
<h1>svc demo</h1>
<p>This page loads the banner with one tag: <code>&lt;script src="${basePath}/svc.js" async&gt;&lt;/script&gt;</code>.</p>
<p>Try a location: <a href="?country=DE">Germany (opt-in)</a>, <a href="?country=FR">France (IAB)</a>,
<a href="?country=US">United States (opt-out)</a>. Clear this site's storage to see the banner again.</p>
<p>Current choice:</p>
<pre id="state">loading…</pre>
<p><button type="button" onclick="svc.push(['showPreferences'])">Privacy settings</button>
<button type="button" onclick="svc.push(['reset']); location.reload()">Forget my choice</button></p>
<script>
  window.svc = window.svc || [];
  svc.push(function (api) {
    var show = function () { document.getElementById("state").textContent = JSON.stringify(api.consent, null, 2) };
    show();
    api.subscribe(show);
  });
</script>
</body>
</html>
`

/** `GET /demo`: a page with the banner, so a newcomer sees svc working at once. */
export const demoPageRoute = (basePath: string) =>
  HttpLayerRouter.add(
    "GET",
    "/demo",
    Effect.sync(() => HttpServerResponse.html(page(basePath)))
  )
