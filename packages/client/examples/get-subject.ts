import { createSvcClient } from "@svc/client"

const svc = createSvcClient({ baseUrl: process.env.SVC_URL!, apiKey: process.env.SVC_API_KEY })

const result = await svc.subjects.get(process.argv[2]!)
if (result.ok) console.log(result.data.isValid, result.data.subjectChoice)
else console.warn(result.error.code, result.error.message, result.error.requestId)
