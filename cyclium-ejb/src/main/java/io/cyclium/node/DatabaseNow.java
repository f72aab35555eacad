package io.cyclium.node;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/**
 * Reads the database's clock for {@link DbClock#now()}. An EJB, not a field of the CDI bean: in an
 * EAR a CDI bean's persistence context is looked up in the calling module's environment, and the
 * web module cannot see the EJB module's unit ("Unable to retrieve EntityManagerFactory for
 * unitName cyclium" when the console or the API started retention on Payara Server). An EJB's
 * own environment always holds it.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class DatabaseNow {

    @PersistenceContext(unitName = "cyclium")
    EntityManager em;

    /** The single value of {@code SELECT <sql>}. */
    public Object select(String sql) {
        return em.createNativeQuery("SELECT " + sql).getSingleResult();
    }
}
