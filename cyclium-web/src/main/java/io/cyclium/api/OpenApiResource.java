package io.cyclium.api;

import jakarta.json.JsonObject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;

/**
 * {@code GET /cyclium/api/openapi}: the OpenAPI 3.0 document of this API, behind the same rules
 * as every other read (web.xml). Served by the application itself, so it is the same on every
 * server, with or without a MicroProfile OpenAPI implementation.
 */
@Path("openapi")
public class OpenApiResource {

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public JsonObject document(@Context UriInfo uri) {
        String base = uri.getBaseUri().getPath();
        return OpenApiDocument.build(base.endsWith("/") ? base.substring(0, base.length() - 1) : base);
    }
}
