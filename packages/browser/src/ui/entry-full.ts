import { boot } from "../runtime/boot.js"
import { consentUi } from "./consent-ui.js"

boot([consentUi()])
