package dev.sqlqueue.spring;

import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.dashboard.DashboardApp;
import dev.sqlqueue.dashboard.DashboardOptions;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;

/**
 * The web dashboard mounted at {@code sqlqueue.dashboard.path} (default {@code /sqlqueue}): only when
 * {@code sqlqueue.dashboard.enabled=true}, {@code sqlqueue-dashboard} is on the class path and the
 * application is a servlet web application.
 */
@AutoConfiguration(after = SqlQueueAutoConfiguration.class)
@ConditionalOnClass(name = {"dev.sqlqueue.dashboard.DashboardApp", "jakarta.servlet.http.HttpServlet"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(prefix = "sqlqueue.dashboard", name = "enabled", havingValue = "true")
@ConditionalOnBean(SqlQueue.class)
public class SqlQueueDashboardAutoConfiguration {

    /**
     * The dashboard application on the queue client, labelled with its backend and server version.
     *
     * @param queue the application's queue client
     * @param properties read for {@code sqlqueue.dashboard.*}
     * @return the dashboard, closed with the context
     * @throws dev.sqlqueue.InvalidInputException if a {@code sqlqueue.dashboard.*} value is out of range
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public DashboardApp sqlQueueDashboardApp(SqlQueue queue, SqlQueueProperties properties) {
        SqlQueueProperties.Dashboard d = properties.getDashboard();
        DashboardOptions options = DashboardOptions.defaults().withToken(d.getToken()).withReadOnly(d.isReadOnly())
                .withPayloadPreview(d.isPayloadPreview()).withRefresh(d.getRefresh()).withSampleInterval(d.getSampleInterval());
        return new DashboardApp(queue, options, queue.capabilities().backend() + " " + queue.serverVersion());
    }

    /**
     * The dashboard's servlet, mounted at {@code sqlqueue.dashboard.path} and below it.
     *
     * @param app the dashboard application
     * @param properties read for {@code sqlqueue.dashboard.path}
     * @return the servlet's registration
     * @throws IllegalArgumentException if the path is not segments of {@code [A-Za-z0-9._~-]} each after a {@code /}
     */
    @Bean
    @ConditionalOnMissingBean(name = "sqlQueueDashboardServlet")
    public ServletRegistrationBean<SqlQueueDashboardServlet> sqlQueueDashboardServlet(DashboardApp app, SqlQueueProperties properties) {
        String path = properties.getDashboard().getPath();
        if (path == null || !path.matches("(/[A-Za-z0-9._~-]+)+")) {
            throw new IllegalArgumentException("sqlqueue.dashboard.path must be a path such as /sqlqueue (segments of "
                    + "[A-Za-z0-9._~-], no trailing slash), was '" + path + "'");
        }
        ServletRegistrationBean<SqlQueueDashboardServlet> bean =
                new ServletRegistrationBean<>(new SqlQueueDashboardServlet(app), path, path + "/*");
        bean.setName("sqlQueueDashboard");
        return bean;
    }
}
