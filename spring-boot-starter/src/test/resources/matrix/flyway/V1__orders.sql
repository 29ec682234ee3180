create table nc_orders (id varchar(64) primary key, item varchar(200) not null);
