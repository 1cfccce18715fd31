import { boot } from "../runtime/boot.js"
import { consentMode } from "../runtime/consent-mode.js"
import { consentUi } from "../ui/consent-ui.js"
import { cmpApi } from "./cmp-api.js"
import { gppApi } from "./gpp-api.js"
import { iabUi } from "./vendor-list.js"

// The CMP APIs go first: they must answer pages' queued __tcfapi and __gpp calls before the UI opens.
boot([consentMode(), cmpApi(), gppApi(), consentUi(iabUi)])
