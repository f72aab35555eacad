package io.cyclium.node;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Read side for the nodes table. */
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class NodeQueries {

    @PersistenceContext(unitName = "cyclium")
    EntityManager em;

    public List<NodeView> all() {
        Map<String, long[]> episodes = episodesByNode(null);
        return em.createQuery("SELECT n FROM NodeEntity n ORDER BY n.lastSeen DESC", NodeEntity.class)
                .setMaxResults(200).getResultList().stream()
                .map(n -> NodeView.of(n, episodes.getOrDefault(n.getNodeIdentity(), new long[2]))).toList();
    }

    public Optional<NodeView> find(String identity) {
        return Optional.ofNullable(em.find(NodeEntity.class, identity))
                .map(n -> NodeView.of(n, episodesByNode(identity).getOrDefault(identity, new long[2])));
    }

    /** Running episodes per node named on the row: [executing, queued]. One grouped query. */
    private Map<String, long[]> episodesByNode(String only) {
        String sql = "SELECT run_node, SUM(CASE WHEN queued_at IS NULL THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN queued_at IS NULL THEN 0 ELSE 1 END) FROM cyclium_episodes"
                + " WHERE status = 'running' AND run_node IS NOT NULL" + (only == null ? "" : " AND run_node = ?1")
                + " GROUP BY run_node";
        jakarta.persistence.Query q = em.createNativeQuery(sql);
        if (only != null) {
            q.setParameter(1, only);
        }
        Map<String, long[]> out = new HashMap<>();
        for (Object row : q.getResultList()) {
            Object[] r = (Object[]) row;
            out.put((String) r[0], new long[] {((Number) r[1]).longValue(), ((Number) r[2]).longValue()});
        }
        return out;
    }
}
