import { boot } from "../runtime/boot.js"
import { consentUi } from "../ui/consent-ui.js"

boot([consentUi()])
