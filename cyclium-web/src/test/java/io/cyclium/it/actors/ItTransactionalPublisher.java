package io.cyclium.it.actors;

import io.cyclium.actor.CycliumEvent;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code POST /cyclium/api/it-publish?type=&id=&subject=&rollback=}: host code publishing a
 * {@link CycliumEvent} inside its own JTA transaction, which it then commits, or marks
 * rollback-only (the interceptor rolls it back as the method returns). When {@code fire} throws (the
 * event could not be stored), it rolls back and answers {@code refused} with what was thrown. Only
 * in the test WAR.
 */
@ApplicationScoped
@Path("it-publish")
public class ItTransactionalPublisher {

    @Inject
    Event<CycliumEvent> events;

    @Resource
    TransactionSynchronizationRegistry registry;

    @POST
    @Transactional
    @Produces(MediaType.APPLICATION_JSON)
    public String publish(@QueryParam("type") String type, @QueryParam("id") String id, @QueryParam("subject") String subject,
            @QueryParam("rollback") boolean rollback) {
        if (type == null || id == null || subject == null) {
            throw new jakarta.ws.rs.BadRequestException("type, id and subject are required");
        }
        Object txKey = registry.getTransactionKey();
        try {
            events.fire(new CycliumEvent(type, id, Json.createObjectBuilder().add("subject", subject).build()));
        } catch (RuntimeException refused) {
            // what host code sees when its event cannot be stored: it gives up its own transaction too
            registry.setRollbackOnly();
            return Json.createObjectBuilder().add("transaction", txKey != null).add("refused", refused.getClass().getSimpleName()
                    + ": " + refused.getMessage()).build().toString();
        }
        if (rollback) {
            registry.setRollbackOnly();
        }
        return "{\"transaction\": " + (txKey != null) + ", \"rollback\": " + rollback + "}";
    }
}
