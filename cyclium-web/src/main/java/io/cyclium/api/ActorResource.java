package io.cyclium.api;

import io.cyclium.runtime.ActorHost;
import io.cyclium.runtime.ActorView;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/** {@code GET /cyclium/api/actors}: every deployed actor, whether it runs here (and why not), its mode, slots and breakers. */
@Path("actors")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class ActorResource {

    @Inject
    ActorHost host;

    @GET
    public List<ActorView> list() {
        return host.views();
    }
}
