// Styles live in a shadow root; every colour, size and font is a `--svc-*` variable the page can set.
export const CSS = `
:host{all:initial}
*{box-sizing:border-box}
.root{font:var(--svc-font-size,15px)/1.45 var(--svc-font,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif);color:var(--svc-fg,#1b1b1f)}
.banner{position:fixed;z-index:var(--svc-z,2147483000);left:16px;right:16px;bottom:16px;margin:0 auto;max-width:var(--svc-max-width,960px);background:var(--svc-bg,#fff);color:var(--svc-fg,#1b1b1f);border:1px solid var(--svc-border,#d4d4d8);border-radius:var(--svc-radius,12px);box-shadow:var(--svc-shadow,0 8px 32px rgba(0,0,0,.18));padding:20px 22px}
.banner:focus{outline:none}
h2{font-size:1.15em;margin:0 0 6px;font-weight:650}
p{margin:0 0 12px;color:var(--svc-muted,#44444c)}
.actions{display:flex;flex-wrap:wrap;gap:8px;justify-content:flex-end;margin-top:8px}
button{font:inherit;cursor:pointer;border-radius:var(--svc-button-radius,8px);padding:9px 16px;border:1px solid var(--svc-accent,#1d4ed8);background:var(--svc-accent,#1d4ed8);color:var(--svc-accent-fg,#fff);min-height:40px}
button.alt{background:transparent;color:var(--svc-accent,#1d4ed8)}
button:hover{filter:brightness(1.08)}
button:focus-visible,input:focus-visible,summary:focus-visible,a:focus-visible{outline:3px solid var(--svc-focus,#f59e0b);outline-offset:2px}
.overlay{position:fixed;inset:0;z-index:var(--svc-z,2147483000);background:var(--svc-overlay,rgba(0,0,0,.45));display:flex;align-items:center;justify-content:center;padding:16px}
.dialog{background:var(--svc-bg,#fff);color:var(--svc-fg,#1b1b1f);border-radius:var(--svc-radius,12px);box-shadow:var(--svc-shadow,0 8px 32px rgba(0,0,0,.18));width:100%;max-width:var(--svc-dialog-width,640px);max-height:calc(100vh - 32px);overflow:auto;padding:20px 22px}
.head{display:flex;justify-content:space-between;align-items:flex-start;gap:12px}
.close{background:transparent;border-color:transparent;color:var(--svc-fg,#1b1b1f);padding:4px 10px;font-size:1.3em;line-height:1}
ul{list-style:none;margin:0;padding:0}
li{border-top:1px solid var(--svc-border,#d4d4d8);padding:10px 0}
label{display:flex;align-items:center;gap:10px;font-weight:600;cursor:pointer}
input[type=checkbox]{width:20px;height:20px;accent-color:var(--svc-accent,#1d4ed8);margin:0}
li p,.note{margin:4px 0 0 30px;font-size:.92em}
.on{margin-left:auto;font-weight:400;font-size:.9em;color:var(--svc-muted,#44444c)}
details{border-top:1px solid var(--svc-border,#d4d4d8);padding:10px 0}
summary{cursor:pointer;font-weight:600}
.vendors li{padding:6px 0}
.vendors a{color:var(--svc-accent,#1d4ed8);font-size:.9em;margin-left:30px}
.widget{position:fixed;z-index:var(--svc-z,2147483000);left:16px;bottom:16px;padding:6px 12px;min-height:32px;font-size:.9em}
@media (max-width:600px){.actions{justify-content:stretch}.actions button{flex:1 1 100%}}
`
