//! admin: the public face of the feature, the operator console the /admin page mounts.
export { AdminConsole } from "./AdminConsole";
