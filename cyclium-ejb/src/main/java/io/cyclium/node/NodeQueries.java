package io.cyclium.node;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.List;
import java.util.Optional;

/** Read side for the nodes table. */
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class NodeQueries {

    @PersistenceContext(unitName = "cyclium")
    EntityManager em;

    public List<NodeView> all() {
        return em.createQuery("SELECT n FROM NodeEntity n ORDER BY n.lastSeen DESC", NodeEntity.class)
                .setMaxResults(200).getResultList().stream().map(NodeView::of).toList();
    }

    public Optional<NodeView> find(String identity) {
        return Optional.ofNullable(em.find(NodeEntity.class, identity)).map(NodeView::of);
    }
}
