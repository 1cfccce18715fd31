import { boot } from "../runtime/boot.js"
import { consentMode } from "../runtime/consent-mode.js"
import { consentUi } from "./consent-ui.js"

boot([consentMode(), consentUi()])
