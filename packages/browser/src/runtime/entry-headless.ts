import { boot } from "./boot.js"

boot([])
