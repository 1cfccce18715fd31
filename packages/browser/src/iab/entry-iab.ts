import { boot } from "../runtime/boot.js"
import { consentMode } from "../runtime/consent-mode.js"
import { consentUi } from "../ui/consent-ui.js"
import { cmpApi } from "./cmp-api.js"
import { iabUi } from "./vendor-list.js"

// The CMP API goes first: it must answer pages' queued __tcfapi calls before the UI opens.
boot([consentMode(), cmpApi(), consentUi(iabUi)])
