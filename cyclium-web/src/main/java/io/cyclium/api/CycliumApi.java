package io.cyclium.api;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** JSON API under /cyclium/api. Bodies are DTOs; entities never leave the runtime. */
@ApplicationPath("api")
public class CycliumApi extends Application {
}
