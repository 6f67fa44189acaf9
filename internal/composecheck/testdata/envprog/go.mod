module example.com/envprog

go 1.26
