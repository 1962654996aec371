module NAME

go 1.21
