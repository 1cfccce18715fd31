import { HttpLayerRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/** `?bundle=iab` loads the IAB bundle (the France link); anything else the ordinary one. */
const bundleFor = (search: string) => (new URLSearchParams(search).get("bundle") === "iab" ? "svc.iab.js" : "svc.js")

const page = (basePath: string, bundle: string) =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc demo</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 42rem; margin: 3rem auto; padding: 0 1rem; color: #1f2328;
         padding-bottom: var(--svc-banner-height, 0px) } /* the banner never covers this page's own buttons */
  code { background: #f4f4f5; padding: .1em .3em; border-radius: 4px }
  pre { background: #f4f4f5; padding: 1rem; border-radius: 8px; overflow: auto }
</style>
<script>window.svcConfig = { country: new URLSearchParams(location.search).get("country") || undefined }</script>
<script src="${basePath}/${bundle}" async></script>
</head>
<body>
<h1>svc demo</h1>
<p>This page loads the banner with one tag: <code>&lt;script src="${basePath}/${bundle}" async&gt;&lt;/script&gt;</code>.</p>
<p>Try a location: <a href="?country=DE">Germany (opt-in)</a>, <a href="?country=FR&amp;bundle=iab">France (IAB, loads svc.iab.js)</a>,
<a href="?country=US">United States (opt-out)</a>. Clear this site's storage to see the banner again.</p>
<p>Current choice, in this browser:</p>
<pre id="state">loading…</pre>
<p>Stored on the server (<code>GET ${basePath}/subjects/:id</code>): the rule and fingerprint the choice was made under are the proof.</p>
<pre id="record">no choice saved yet</pre>
<div id="tcf-block" hidden><p>IAB TCF (<code>__tcfapi("getTCData")</code>):</p><pre id="tcf"></pre></div>
<p><button type="button" onclick="svc.push(['showPreferences'])">Privacy settings</button>
<button type="button" onclick="svc.push(['reset']); location.reload()">Forget my choice</button></p>
<script>
  window.svc = window.svc || [];
  svc.push(function (api) {
    var show = function () { document.getElementById("state").textContent = JSON.stringify(api.consent, null, 2) };
    // After a save the record reaches the server a moment later: ask until it is there.
    var showRecord = function (givenAt, attempt) {
      fetch("${basePath}/subjects/" + encodeURIComponent(api.subjectId)).then(function (response) {
        return response.ok ? response.json() : null;
      }).then(function (body) {
        var latest = body && body.consents.filter(function (c) { return c.type === "cookie_banner" })
          .sort(function (a, b) { return a.givenAt < b.givenAt ? 1 : -1 })[0];
        var fresh = latest && (givenAt === undefined || Date.parse(latest.givenAt) >= givenAt);
        if (!fresh) {
          if (attempt < 20) setTimeout(function () { showRecord(givenAt, attempt + 1) }, 250);
          return;
        }
        document.getElementById("record").textContent = JSON.stringify({
          consentId: latest.consentId,
          policyId: latest.policyId,
          policyFingerprint: latest.policyFingerprint,
          runtimePolicySource: latest.runtimePolicySource,
          givenAt: latest.givenAt,
          preferences: latest.preferences,
          vendorChoice: latest.vendorChoice
        }, null, 2);
      });
    };
    var showTcf = function () {
      if (typeof window.__tcfapi !== "function") return;
      window.__tcfapi("getTCData", 2, function (data, success) {
        if (!success) return;
        document.getElementById("tcf-block").hidden = false;
        document.getElementById("tcf").textContent = JSON.stringify({ gdprApplies: data.gdprApplies, cmpStatus: data.cmpStatus, tcString: data.tcString }, null, 2);
      });
    };
    show();
    if (api.consent.status === "given") showRecord(undefined, 0);
    api.ready.then(showTcf);
    api.subscribe(function (state, event) {
      show();
      if (event === "save") {
        showRecord(state.givenAt, 0);
        showTcf();
      }
    });
  });
</script>
</body>
</html>
`

/**
 * `GET /demo`: a page with the banner, so a newcomer sees svc working at once, and the record
 * each save leaves on the server.
 */
export const demoPageRoute = (basePath: string) =>
  HttpLayerRouter.add(
    "GET",
    "/demo",
    Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
      const query = request.url.indexOf("?")
      return HttpServerResponse.html(page(basePath, bundleFor(query === -1 ? "" : request.url.slice(query + 1))))
    })
  )
