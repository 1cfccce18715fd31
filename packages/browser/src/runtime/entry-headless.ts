import { boot } from "./boot.js"
import { consentMode } from "./consent-mode.js"

boot([consentMode()])
