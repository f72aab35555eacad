package io.cyclium.api;

import io.cyclium.config.CycliumConfig;
import io.cyclium.node.NodeIdentity;
import io.cyclium.node.NodeQueries;
import io.cyclium.node.NodeView;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/** This node and its peers as the database knows them. Also the readiness probe of the quick start. */
@Path("nodes")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class NodeResource {

    @Inject
    NodeIdentity identity;

    @Inject
    CycliumConfig config;

    @EJB
    NodeQueries nodes;

    public record ThisNode(String nodeIdentity, String mode, String stackSlug, String env) {
    }

    @GET
    @Path("self")
    public ThisNode self() {
        return new ThisNode(identity.name(), config.mode().wireName(), config.stackSlug(), config.env());
    }

    @GET
    public List<NodeView> all() {
        return nodes.all();
    }
}
